import { AMAL, SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { makeTask } from "./seed";

// Issue 27 item 9: the task page reads title, description, then the rest; the description
// is Markdown (links clickable, nothing of it markup); the engine's fields in a side panel;
// a payload only where there is one.

test("the description is Markdown, safely: links clickable, markup left as text; no empty payload", async ({ page, db, queue, actorOf }) => {
  const sara = await actorOf(SARA);
  const task = await makeTask(db, sara, {
    title: `Read the gauge ${queue}`,
    queue,
    description: "Look at **the dial** first.\n\n- see [the runbook](https://example.com/runbook)\n- or https://example.com/wiki.\n\n<script>window.pwned = 1</script> [bad](javascript:alert(1))",
  });
  await signIn(page, AMAL, `/tasks/${task.id}`);
  await live(page);
  const description = page.getByRole("region", { name: "Description" });
  await expect(description.locator("strong")).toHaveText("the dial");
  await expect(description.getByRole("link", { name: "the runbook" })).toHaveAttribute("href", "https://example.com/runbook");
  await expect(description.getByRole("link", { name: "https://example.com/wiki" })).toHaveAttribute("href", "https://example.com/wiki");
  await expect(description.getByRole("link")).toHaveCount(2); // javascript: stays text
  await expect(description).toContainText("<script>window.pwned = 1</script>");
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  await expect(description.locator("script")).toHaveCount(0);

  // Title, then the description, before the actions and the fields.
  const y = async (l: import("@playwright/test").Locator) => (await l.boundingBox())!.y;
  expect(await y(description)).toBeLessThan(await y(page.getByRole("region", { name: "Actions" })));
  await expect(page.getByRole("complementary", { name: "Engine fields" })).toContainText("Version");
  await expect(page.getByTestId("payload")).toHaveCount(0); // {} is no payload
  await expect(page.getByRole("heading", { name: "Payload" })).toHaveCount(0);
});
