import { eq, sql } from "drizzle-orm";
import { queues } from "../db/schema";
import { claim, complete, createActor, perform, start } from "../lib/tasks";
import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Issue 23 item 2: an agent's completion waits for review; a supervisor reads the submission
// (its result and digest) on the task page and approves it; the task is done.

test.describe("review before done on the task page", () => {
  test("a supervisor approves an agent's submission", async ({ page, db, queue, actorOf }) => {
    await db.update(queues).set({ review: "agents" }).where(eq(queues.name, queue));
    const agent = await createActor(db, "agent", `maker-${Math.random().toString(36).slice(2, 6)}`);
    const title = `Draft the release notes ${queue}`;
    let task = await makeTask(db, await actorOf(SARA), { title, queue });
    task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
    task = must(await perform(complete, { taskId: task.id, version: task.version, result: { notes: "v2.1: faster claims" } }, { db, actor: agent }));
    expect(task.status).toBe("in_review");

    await signIn(page, SARA, `/?queue=${queue}`);
    await expect(page.getByTestId("reviews-waiting")).toContainText(/reviews? wait/);
    await page.goto(`/tasks/${task.id}`);
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "in_review");
    const panel = page.getByRole("region", { name: "Waiting for review" });
    await expect(panel.getByTestId("submission-digest")).toHaveText(task.submission!.digest);
    await expect(panel.getByTestId("submission-result")).toContainText("v2.1: faster claims");
    await expect(panel).toContainText(agent.name);
    await panel.getByLabel(/Note/).fill("Reads well.");
    await panel.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByTestId("task-status")).toHaveAttribute("data-status", "done");
    await expect(panel).toBeHidden();
    const [row] = await db.execute<{ status: string; type: string; note: string }>(sql`
      SELECT t.status::text AS status, e.type::text AS type, e.payload->>'note' AS note
      FROM tasks t JOIN task_events e ON e.task_id = t.id
      WHERE t.id = ${task.id}::bigint ORDER BY e.id DESC LIMIT 1`);
    expect(row).toEqual({ status: "done", type: "approved", note: "Reads well." });
  });
});
