import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { askQuestion, claim, createActor, editTask, perform, start } from "../lib/tasks";
import { SARA } from "./people";
import { expect, live, signIn, test } from "./fixtures";
import { makeTask, must } from "./seed";

// A parked task's reservations, released by a supervisor from the task page (docs/reservations.md):
// an agent reserved a whole folder and asked a question; Sara releases what it reserves, the task
// stays parked with its owner, and the task it blocked is claimable at once.

test("a supervisor releases what a task parked on a question reserves, from its page", async ({ page, db, queue, actorOf }) => {
  const sara = await actorOf(SARA);
  const agent = await createActor(db, "agent", `bot-${randomBytes(2).toString("hex")}`);
  const title = `Rewrite the templates ${queue}`;
  let task = await makeTask(db, sara, { title, queue });
  task = must(await perform(
    editTask, { taskId: task.id, version: task.version, reserves: [{ resource: `${queue}/**`, mode: "exclusive" }] },
    { db, actor: sara, standing: "supervisor" },
  ));
  task = must(await perform(claim, { taskId: task.id, version: task.version }, { db, actor: agent }));
  task = must(await perform(start, { taskId: task.id, version: task.version }, { db, actor: agent }));
  task = must(await perform(askQuestion, { taskId: task.id, version: task.version, question: "Which template first?" }, { db, actor: agent })).task;

  await signIn(page, SARA, `/tasks/${task.id}`);
  await live(page);
  await page.getByRole("button", { name: "Release reservations" }).click();
  await expect(page.getByText(`Released what “${title}” reserves`)).toBeVisible();
  await expect(page.getByRole("button", { name: "Release reservations" })).toHaveCount(0);
  const [row] = await db.execute<{ status: string; reserves: unknown; owner: string }>(sql`
    SELECT status::text, reserves, owner_id::text AS owner FROM tasks WHERE id = ${task.id}::bigint`);
  expect(row).toEqual({ status: "awaiting_input", reserves: null, owner: agent.id });
});
