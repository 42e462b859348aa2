import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { abandonedWithSideEffect, makeTask } from "./seed";

test.describe("the task page", () => {
  test("taking over a task whose side effect began asks for a check, then shows the attempts", async ({ page, db, queue, actorOf }) => {
    const title = `Email the landlord ${queue}`;
    const { agent, task } = await abandonedWithSideEffect(db, await actorOf(SARA), { title, queue }, "Sent the reminder email to the landlord");
    await signIn(page, AMAL, `/tasks/${task.id}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
    await expect(page.getByTestId("lease")).toHaveText(/^lapsed/);

    await page.getByRole("button", { name: "Claim" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "claimed");
    await expect(page.getByTestId("task-status")).toContainText("needs check");

    await page.getByRole("button", { name: "Start" }).click();
    const dialog = page.getByRole("dialog", { name: "Check before starting" });
    const effects = dialog.getByRole("list", { name: "Recorded side effects" });
    await expect(effects.getByRole("listitem")).toHaveCount(1);
    await expect(effects).toContainText("Sent the reminder email to the landlord");
    await expect(effects).toContainText(agent.name);
    await expect(effects).toContainText("agent");
    await dialog.getByRole("button", { name: "I've checked — start" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "started");
    await expect(page.getByTestId("task-status")).not.toContainText("needs check");

    // The history, by attempt: each `claimed` starts one.
    const history = page.getByRole("region", { name: "History" });
    await expect(history.getByTestId("attempt")).toHaveCount(3);
    const before = history.getByRole("region", { name: "Before the first claim" });
    await expect(before).toContainText("Sara");
    await expect(before).toContainText("created the task");
    const first = history.getByRole("region", { name: "Attempt 1" });
    await expect(first).toContainText(agent.name);
    await expect(first).toContainText("recorded a side effect: Sent the reminder email to the landlord");
    await expect(first).toContainText("lease lapsed");
    const second = history.getByRole("region", { name: "Attempt 2" });
    await expect(second.getByTestId("event")).toHaveCount(3);
    await expect(second).toContainText("Amal");
    await expect(second).toContainText("confirmed the check");
    await expect(second).toContainText("started work");
  });

  test("fields, pretty payload, and the owner's actions: renew, side effect, fail with a reason", async ({ page, db, queue, actorOf }) => {
    const payload = { unit: "4B", readings: [1.5, 1.6], contact: { name: "Ms Okafor" } };
    const task = await makeTask(db, await actorOf(SARA), { title: `Check the meter ${queue}`, queue, payload, description: "Twice a year." });
    await signIn(page, AMAL, `/tasks/${task.id}`);
    const shown = (await page.getByTestId("payload").textContent()) ?? "";
    expect(JSON.parse(shown)).toEqual(payload);
    expect(shown).toContain('\n  "unit": "4B"'); // pretty: indented, one key a line
    await expect(page.getByText("Twice a year.", { exact: true })).toBeVisible();

    await page.getByRole("button", { name: "Claim" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "claimed");
    await page.getByRole("button", { name: "Renew lease" }).click();
    const history = page.getByRole("region", { name: "History" });
    await expect(history).toContainText("renewed the lease");

    await page.getByRole("button", { name: "Record side effect" }).click();
    const effect = page.getByRole("dialog", { name: "Record a side effect" });
    await effect.getByLabel("What are you about to do outside Claimboard?").fill("Phoning Ms Okafor");
    await effect.getByRole("button", { name: "Record side effect" }).click();
    await expect(history).toContainText("recorded a side effect: Phoning Ms Okafor");

    await page.getByRole("button", { name: "Fail…" }).click();
    const fail = page.getByRole("dialog", { name: /^Fail/ });
    await fail.getByLabel("Reason").fill("Nobody answered");
    await fail.getByRole("button", { name: "Report failure" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "queued");
    await expect(history).toContainText("reported a failure: Nobody answered");
    // A side effect began in the failed attempt: the next claimant must check it.
    await expect(page.getByTestId("task-status")).toContainText("needs check");
    await expect(history.getByRole("region", { name: "Attempt 1" })).toContainText("failed");
  });
});
