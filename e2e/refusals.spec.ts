import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { queues } from "../db/schema";
import { answerQuestion, archiveQueue, askQuestion, claim, complete, createActor, perform, requeue, review, start } from "../lib/tasks";
import { makeQueue } from "../test/queues";
import type { Page } from "@playwright/test";
import { AMAL, BILAL, SARA, type Person } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { escalated, makeTask, must } from "./seed";

// What a person sees when the server refuses what they just did because someone else got
// there first, and their page's live stream has not said so yet (cut here, as a flaky network
// or a sleeping laptop would): the page shows the task as it is now, a sentence says why,
// and nothing they wrote is lost. Found by exploratory testing on 6 Dec 2026.

/**
 * Signed in, then the page loaded again with its event stream refused, so nothing it shows
 * after that comes from the stream; hydrated once it says it is reconnecting.
 */
async function signInWithoutStream(page: Page, person: Person, where: string) {
  await signIn(page, person, where);
  await page.route("**/api/v1/events**", (route) => route.abort());
  await page.reload();
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-status", "reconnecting");
}

test.describe("refused, and the page catches up", () => {
  test("a create refused after the form closed gives back what was written; an archived queue stays shown as what would be sent", async ({ page, db, actorOf }) => {
    const gone = await makeQueue(db, `e2e-gone-${randomBytes(4).toString("hex")}`);
    const title = `Survey the roof ${gone}`;
    await signIn(page, AMAL, "/");
    await live(page);
    await page.getByRole("button", { name: "New task" }).click();
    let form = page.getByRole("form", { name: "New task" });
    await form.getByLabel("Title").fill(title);
    await form.getByLabel("Description").fill("Both wings, and the gutters.");
    await form.getByLabel("Queue").selectOption(gone);
    must(await perform(archiveQueue, { queue: gone }, { db, actor: await actorOf(SARA), standing: "supervisor" }));
    // The picker hears of the archive and still shows what a create would send.
    await expect(form.getByLabel("Queue").locator("option:checked")).toHaveText(`${gone} (no longer open)`);

    await form.getByRole("button", { name: "Create task" }).click();
    form = page.getByRole("form", { name: "New task" });
    await expect(form.getByTestId("create-refused")).toContainText(`“${title}” was not created`);
    await expect(form.getByTestId("create-refused")).toContainText("archived");
    await expect(form.getByLabel("Title")).toHaveValue(title);
    await expect(form.getByLabel("Description")).toHaveValue("Both wings, and the gutters.");
    const [row] = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM tasks WHERE title = ${title}`);
    expect(row!.n).toBe(0);
    // Closed by hand, it is let go: the next New task is empty.
    await page.getByRole("button", { name: "Close" }).click();
    await page.getByRole("button", { name: "New task" }).click();
    await expect(page.getByRole("form", { name: "New task" }).getByLabel("Title")).toHaveValue("");
    await expect(page.getByTestId("create-refused")).toHaveCount(0);
  });

  test("a review decided by someone else first: the page shows the task as it is, and says why", async ({ page, db, queue, actorOf }) => {
    await db.update(queues).set({ review: "agents" }).where(eq(queues.name, queue));
    const agent = await createActor(db, "agent", `maker-${randomBytes(3).toString("hex")}`);
    let task = await makeTask(db, await actorOf(SARA), { title: `Write the notice ${queue}`, queue });
    task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(complete, { taskId: task.id, version: task.version, result: { text: "closed Monday" } }, { db, actor: agent }));

    await signInWithoutStream(page, BILAL, `/tasks/${task.id}`);
    const panel = page.getByRole("region", { name: "Waiting for review" });
    await expect(panel).toBeVisible();
    must(await perform(review, { taskId: task.id, version: task.version, decision: "approve", digest: task.submission!.digest }, { db, actor: await actorOf(AMAL) }));

    await panel.getByRole("button", { name: "Reject" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "done");
    await expect(panel).toBeHidden();
    // The panel went with the review; the toast keeps the sentence.
    await expect(page.getByRole("alert").filter({ hasText: "This task is done now" })).toContainText("so you can't reject it");
  });

  test("an inbox decision someone else made first: the row leaves the inbox", async ({ page, db, queue, actorOf }) => {
    const title = `Call the plumber ${queue}`;
    const task = await escalated(db, await actorOf(AMAL), { title, queue }, ["no answer", "no answer", "no answer"]);
    await signInWithoutStream(page, SARA, "/inbox");
    const row = page.getByRole("article", { name: title });
    await expect(row).toBeVisible();
    must(await perform(requeue, { taskId: task.id, version: task.version }, { db, actor: await actorOf(SARA), standing: "supervisor" }));

    await row.getByRole("button", { name: /^Resolve/ }).click();
    await expect(page.getByRole("alert").filter({ hasText: "This task is queued now" })).toContainText("so you can't resolve it");
    await expect(row).toHaveCount(0);
  });

  test("a question answered by someone else first: the sentence stays, the question leaves the list", async ({ page, db, queue, actorOf }) => {
    const agent = await createActor(db, "agent", `asker-${randomBytes(3).toString("hex")}`);
    let task = await makeTask(db, await actorOf(SARA), { title: `Refund or credit ${queue}`, queue });
    task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
    const { question } = must(await perform(askQuestion, { taskId: task.id, version: task.version, question: `Refund in full? ${queue}`, choices: ["Yes", "No"] }, { db, actor: agent }));

    await signInWithoutStream(page, BILAL, "/questions");
    const item = page.getByTestId(`question-${question.id}`);
    await expect(item).toBeVisible();
    must(await perform(answerQuestion, { taskId: task.id, questionId: question.id, text: "Yes", choice: "Yes" }, { db, actor: await actorOf(AMAL) }));

    await item.getByRole("button", { name: "No" }).click();
    // The question leaves the list with its form; the toast keeps the sentence.
    await expect(item).toHaveCount(0);
    await expect(page.getByRole("alert").filter({ hasText: "was answered already by" })).toBeVisible();
  });
});
