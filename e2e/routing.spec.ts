import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { makeQueue } from "../test/queues";
import { AMAL, SARA } from "./people";
import { expect, live, pageAs, signIn, test } from "./fixtures";
import { claim, perform, release } from "../lib/tasks";
import { escalated, makeTask } from "./seed";

// Issue 27 item 6: routing work — a task moved to another queue, from the inbox and from
// its page; dependencies and not-before set and removed from the task page.

test.describe("routing work", () => {
  test("a task moved to another queue from the inbox appears there live", async ({ browser, db, queue, actorOf }) => {
    const people = await makeQueue(db, `e2e-people-${randomBytes(4).toString("hex")}`);
    const title = `Call the tenant ${queue}`;
    const task = await escalated(db, await actorOf(SARA), { title, queue }, ["no phone line", "no phone line", "no phone line"]);
    const amal = await pageAs(browser, AMAL, `/?queue=${people}`);
    await live(amal);
    await expect(amal.getByRole("article", { name: title })).toHaveCount(0);

    const sara = await pageAs(browser, SARA, "/inbox");
    await sara.getByRole("button", { name: `Requeue to another queue: ${title}` }).click();
    const dialog = sara.getByRole("dialog", { name: `Requeue “${title}” to another queue` });
    await dialog.getByLabel("Queue").selectOption(people);
    await dialog.getByRole("button", { name: `Requeue to ${people}` }).click();
    await expect(sara.getByRole("status").filter({ hasText: `Requeued “${title}” to queue ${people}.` })).toBeVisible();
    await expect(sara.getByRole("article", { name: title })).toHaveCount(0);

    // Amal, watching the people's queue, sees it arrive without a reload: queued, claimable.
    const card = amal.getByRole("region", { name: "Queued" }).getByRole("article", { name: title });
    await expect(card).toBeVisible();
    await expect(card.getByRole("button", { name: "Claim" })).toBeVisible();
    const [row] = await db.execute<{ queue: string; status: string; failure_count: number }>(sql`SELECT queue, status, failure_count FROM tasks WHERE id = ${task.id}::bigint`);
    expect(row).toEqual({ queue: people, status: "queued", failure_count: 0 });
    await amal.context().close();
    await sara.context().close();
  });

  test("a task Amal worked and let go keeps its queue for a supervisor to change: the field says so, the not-before form is not offered", async ({ page, db, queue, actorOf }) => {
    const amal = await actorOf(AMAL);
    let task = await makeTask(db, amal, { title: `Check the boiler ${queue}`, queue });
    const claimed = await perform(claim, { taskId: task.id, version: task.version }, { db, actor: amal });
    if (!claimed.ok) throw new Error(claimed.error.message);
    const released = await perform(release, { taskId: task.id, version: claimed.value.version }, { db, actor: amal });
    if (!released.ok) throw new Error(released.error.message);
    task = released.value;
    await signIn(page, AMAL, `/tasks/${task.id}`);
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    const field = page.getByRole("combobox", { name: "Queue" });
    await expect(field).toBeDisabled();
    await expect(page.getByTestId("edit-task")).toContainText("Only a supervisor can move a task that has been worked on (attempt 1)");
    await expect(page.getByRole("form", { name: "Not before" })).toHaveCount(0);
    // Its words are still hers to edit.
    await page.getByLabel("Title").fill(`Check the boiler today ${queue}`);
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("heading", { name: `Check the boiler today ${queue}` })).toBeVisible();
  });

  test("on the task page: the queue is edited, a dependency added (shown by title and status), a not-before set and removed", async ({ page, db, queue, actorOf }) => {
    const other = await makeQueue(db, `e2e-other-${randomBytes(4).toString("hex")}`);
    const sara = await actorOf(SARA);
    const paint = await makeTask(db, sara, { title: `Order the paint ${queue}`, queue });
    const hall = await makeTask(db, await actorOf(AMAL), { title: `Paint the hall ${queue}`, queue });
    await signIn(page, AMAL, `/tasks/${hall.id}`);

    await page.getByRole("button", { name: "Edit", exact: true }).click();
    await page.getByRole("combobox", { name: "Queue" }).selectOption(other);
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByTestId("edit-task")).toHaveCount(0);
    await expect(page.locator("dd", { hasText: other }).first()).toBeVisible();

    const deps = page.getByRole("form", { name: "Add a dependency" });
    await deps.getByLabel("Wait for task #").fill(hall.id);
    await deps.getByRole("button", { name: "Add dependency" }).click();
    await expect(deps.getByRole("alert")).toHaveText("A task cannot wait for itself.");
    await deps.getByLabel("Wait for task #").fill(paint.id);
    await deps.getByRole("button", { name: "Add dependency" }).click();
    await expect(page.getByTestId("depends-on")).toHaveText(`“Order the paint ${queue}” (#${paint.id}, queued)`);
    await expect(page.getByRole("region", { name: "Actions" }).getByRole("button", { name: "Claim" })).toHaveCount(0);

    const later = page.getByRole("form", { name: "Not before" });
    await later.getByLabel("Not before").fill("2099-01-02T09:30");
    await later.getByRole("button", { name: "Set time" }).click();
    await expect(page.getByTestId("graph-not-before")).toContainText("09:30");
    await later.getByRole("button", { name: /^Remove/ }).click();
    await expect(page.getByTestId("graph-not-before")).toHaveCount(0);
    const [row] = await db.execute<{ queue: string; not_before: Date | null; depends_on: string[] }>(
      sql`SELECT queue, not_before, depends_on::text[] AS depends_on FROM tasks WHERE id = ${hall.id}::bigint`,
    );
    expect(row).toEqual({ queue: other, not_before: null, depends_on: [paint.id] });
  });
});
