import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";

// /schedules as a supervisor uses it: a bad cron refused in words, a schedule created with its
// next run shown, paused (no next run) and resumed, deleted.

test("a supervisor creates a schedule, sees its next run, pauses, resumes and deletes it", async ({ page, queue }) => {
  await signIn(page, SARA, "/schedules");
  const form = page.getByRole("form", { name: "Create a schedule" });
  const name = `Digest for ${queue}`;
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Task title").fill("Send the weekly digest");
  await form.getByLabel("Cron").fill("0 0 9 * * 1");
  await form.getByLabel("Time zone").fill("Europe/Berlin");
  await form.getByLabel("Queue").selectOption(queue);
  await form.getByRole("button", { name: "Create schedule" }).click();
  await expect(form.getByRole("alert")).toHaveText("Cron: must have 5 fields (minute hour day-of-month month day-of-week), not 6.");

  await form.getByLabel("Cron").fill("0 9 * * 1");
  await form.getByRole("button", { name: "Create schedule" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Schedule ${name} created` })).toBeVisible();
  const card = page.getByTestId("schedule").filter({ hasText: name });
  await expect(card).toContainText(`0 9 * * 1 (Europe/Berlin) → ${queue}: “Send the weekly digest”`);
  await expect(card).toContainText(/Next run: \S+ \d\d:00:00/);
  await expect(card).toContainText("no run yet");

  // Each button names its schedule: a list of them reads as more than "Pause, Delete, Pause, Delete".
  await page.getByRole("button", { name: `Pause schedule ${name}`, exact: true }).click();
  await expect(card).toContainText("Next run: none while paused");
  await page.getByRole("button", { name: `Resume schedule ${name}`, exact: true }).click();
  await expect(card).toContainText(/Next run: \S+ \d\d:00:00/);
  await page.getByRole("button", { name: `Delete schedule ${name}`, exact: true }).click();
  await expect(page.getByTestId("schedule").filter({ hasText: name })).toHaveCount(0);
});
