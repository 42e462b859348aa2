import { createTask, perform } from "../lib/tasks";
import { makeQueue } from "../test/queues";
import { AMAL, SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Issue 27 item 3: offer only what can succeed, and a "next" that is the next of the view.

test.describe("actions that can succeed", () => {
  test("a blocked card offers no Claim and names its blockers by title, on the columns and in the list", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    const paint = await makeTask(db, sara, { title: `Order the paint ${queue}`, queue });
    const van = await makeTask(db, sara, { title: `Book the van ${queue}`, queue });
    must(await perform(createTask, { title: `Paint the hall ${queue}`, queue, priority: 9, dependsOn: [paint.id, van.id] }, { db, actor: sara }));

    await signIn(page, AMAL, `/?queue=${queue}`);
    const card = page.getByRole("article", { name: `Paint the hall ${queue}` });
    await expect(card.getByTestId("blocked-by")).toHaveText(`blocked by “Order the paint ${queue}” (#${paint.id}), “Book the van ${queue}” (#${van.id})`);
    await expect(card.getByRole("button", { name: "Claim" })).toHaveCount(0);
    // Its blockers are claimable, and say so.
    await expect(page.getByRole("article", { name: `Order the paint ${queue}` }).getByRole("button", { name: "Claim" })).toBeVisible();

    await page.goto(`/?queue=${queue}&view=list`);
    const row = page.getByTestId("task-list").getByRole("row", { name: new RegExp(`Paint the hall ${queue}`) });
    await expect(row.getByTestId("blocked-by")).toContainText(`“Order the paint ${queue}” (#${paint.id})`);
    await expect(row.getByRole("button", { name: "Claim" })).toHaveCount(0);
    await expect(page.getByTestId("task-list").getByRole("row", { name: new RegExp(`Book the van ${queue}`) }).getByRole("button", { name: "Claim" })).toBeVisible();
  });

  test("claim next takes the top claimable card of the view, whatever its queue", async ({ page, db, queue, actorOf }) => {
    const sara = await actorOf(SARA);
    const other = await makeQueue(db, `${queue}-b`);
    const tag = queue.slice(-8);
    // The view: everything matching the tag, across both queues, in claim order.
    await makeTask(db, sara, { title: `Low in one ${tag}`, queue, priority: 1 });
    const top = await makeTask(db, sara, { title: `High in two ${tag}`, queue: other, priority: 8 });
    must(await perform(createTask, { title: `Blocked in two ${tag}`, queue: other, priority: 9, dependsOn: [top.id] }, { db, actor: sara }));

    await signIn(page, AMAL, `/?q=${tag}`);
    const queued = page.getByRole("region", { name: "Queued" });
    await expect(queued.getByRole("article")).toHaveCount(3);
    await page.getByRole("button", { name: "Claim next", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "You claimed" })).toContainText(`You claimed High in two ${tag}`);
    await expect(page.getByRole("region", { name: "Claimed" }).getByRole("article", { name: `High in two ${tag}` }).getByTestId("owner")).toContainText("Amal");
    await expect(queued.getByRole("article", { name: `Low in one ${tag}` })).toBeVisible();
  });
});
