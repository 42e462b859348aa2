import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queues } from "../db/schema";
import { claim, complete, createActor, perform, release, start, type ActorRef, type Task } from "../lib/tasks";
import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// Issue 23 item 2: an agent's completion waits for review; a supervisor reads the submission
// (its result and digest) on the task page and approves it; the task is done. In the inbox a
// supervisor approves a selection in bulk: a task they held an attempt of is refused there
// (self_review, the engine's sentence in its own line) while the other is approved.

async function submittedBy(db: Db, agent: ActorRef, task: Task) {
  task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
  task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
  return must(await perform(complete, { taskId: task.id, version: task.version, result: { done: task.title } }, { db, actor: agent }));
}

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

  test("a bulk approve in the inbox: the task the supervisor held is refused with self_review, the other is approved", async ({ page, db, queue, actorOf }) => {
    await db.update(queues).set({ review: "agents" }).where(eq(queues.name, queue));
    const agent = await createActor(db, "agent", `maker-${Math.random().toString(36).slice(2, 6)}`);
    const sara = await actorOf(SARA);
    // Sara held an attempt of the first task (claimed it, then let it go) before the agent did it.
    let held = await makeTask(db, sara, { title: `Held by Sara ${queue}`, queue });
    held = must(await perform(claim, { taskId: held.id, version: held.version }, { db, actor: sara }));
    held = must(await perform(release, { taskId: held.id, version: held.version }, { db, actor: sara }));
    held = await submittedBy(db, agent, held);
    const other = await submittedBy(db, agent, await makeTask(db, sara, { title: `Not touched by Sara ${queue}`, queue }));
    expect([held.status, other.status]).toEqual(["in_review", "in_review"]);

    await signIn(page, SARA, `/inbox?queue=${queue}`);
    const section = page.getByTestId("in-review");
    await expect(section.getByTestId(`in-review-${held.id}`)).toBeVisible();
    await expect(section.getByTestId(`in-review-${other.id}`)).toBeVisible();
    await section.getByRole("checkbox", { name: `Select #${held.id} ${held.title}` }).check();
    await section.getByRole("checkbox", { name: `Select #${other.id} ${other.title}` }).check();
    await section.getByRole("button", { name: "Approve 2 selected" }).click();

    await expect(section.getByTestId(`review-refused-${held.id}`)).toHaveText(
      `#${held.id} ${held.title}: You held an attempt of task ${held.id}: someone who did not work on it must review it (maker–checker)`,
    );
    await expect(section.getByTestId(`in-review-${other.id}`)).toHaveCount(0);
    await expect(section.getByTestId(`in-review-${held.id}`)).toBeVisible();
    const rows = await db.execute<{ id: string; status: string }>(sql`SELECT id::text, status::text FROM tasks WHERE id IN (${held.id}::bigint, ${other.id}::bigint) ORDER BY id`);
    expect(rows.map((r) => [r.id, r.status])).toEqual([[held.id, "in_review"], [other.id, "done"]]);
  });
});
