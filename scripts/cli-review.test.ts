import { afterAll, beforeAll, expect, test } from "vitest";
import { claim, complete, createActor, createTask, perform, start, type ActorRef } from "@/lib/tasks";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { taskRow } from "@/test/inspect";

// Review before done from a shell: `queue set --review` and `task review`, as the operator.

let database: TestDatabase;
let bot: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  bot = await createActor(database.db, "agent", "bot");
});
afterAll(async () => {
  await database?.close();
});

const must = async <T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) => {
  const r = await result;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

test("an operator sets a queue's review and approves a submission; a stale digest is refused with nothing written", async () => {
  await makeQueue(database.db, "cli-review");
  const set = await runCli(["queue", "set", "--name", "cli-review", "--review", "agents"], database.url);
  expect(set, set.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining("review agents") });
  const bad = await runCli(["queue", "set", "--name", "cli-review", "--review", "sometimes"], database.url);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/must be none, agents or everyone/);

  const ctx = { db: database.db, actor: bot };
  const task = await must(perform(createTask, { title: "ship", queue: "cli-review" }, ctx));
  const held = await must(perform(claim, { taskId: task.id, version: task.version }, ctx));
  const started = await must(perform(start, { taskId: task.id, version: held.version }, ctx));
  const submitted = await must(perform(complete, { taskId: task.id, version: started.version, result: { shipped: true } }, ctx));
  expect(submitted.status).toBe("in_review");

  const before = await taskRow(database.db, task.id);
  const stale = await runCli(["task", "review", task.id, "--version", String(submitted.version), "--decision", "approve", "--digest", "b".repeat(64)], database.url);
  expect(stale.code).not.toBe(0);
  expect(stale.stderr).toMatch(/not task \d+'s submission/);
  expect(await taskRow(database.db, task.id)).toEqual(before);

  const approved = await runCli(["task", "review", task.id, "--version", String(submitted.version), "--decision", "approve",
    "--digest", submitted.submission!.digest, "--note", "looks right"], database.url);
  expect(approved, approved.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining(`task ${task.id} is done`) });
  expect((await taskRow(database.db, task.id)).status).toBe("done");
});
