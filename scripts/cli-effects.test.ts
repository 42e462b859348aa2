import { afterAll, beforeAll, expect, test } from "vitest";
import { claim, createActor, perform, recordEffect, release, start, type ActorRef } from "@/lib/tasks";
import { makeFence, readFenceKey } from "@/lib/tasks/fences/fence";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { createTask } from "@/lib/tasks";

// `effect list`, `effect resolve` and `fence verify` as an operator runs them.

let database: TestDatabase;
let amal: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  amal = await createActor(database.db, "agent", "amal");
});
afterAll(async () => {
  await database?.close();
});

const must = async <T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) => {
  const r = await result;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

test("an operator lists a task's ledger, resolves an unknown effect, and checks fences (exit 0 only when current)", async () => {
  const ctx = { db: database.db, actor: amal };
  await makeQueue(database.db, "cli-effects");
  const task = await must(perform(createTask, { title: "deploy", queue: "cli-effects" }, ctx));
  const held = await must(perform(claim, { taskId: task.id, version: 1 }, ctx));
  const started = await must(perform(start, { taskId: task.id, version: held.version }, ctx));
  const { effect } = await must(perform(recordEffect, { taskId: task.id, version: started.version, name: "push to prod" }, ctx));
  const fence = makeFence(await readFenceKey(database.db), task.id, started.attempt);

  const current = await runCli(["fence", "verify", fence], database.url);
  expect(current, current.stderr).toMatchObject({ code: 0, stdout: expect.stringMatching(/^current: task \d+ attempt 1 .*: current/) });
  const released = await must(perform(release, { taskId: task.id, version: started.version }, ctx));
  const stale = await runCli(["fence", "verify", fence], database.url);
  expect(stale).toMatchObject({ code: 1, stderr: expect.stringMatching(/not current: .*released/) });
  const forged = await runCli(["fence", "verify", fence.slice(0, -3)], database.url);
  expect(forged.code).toBe(1);
  expect(forged.stderr).toMatch(/fence does not verify/);

  const listed = await runCli(["effect", "list", task.id], database.url);
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toContain(`${effect.id}\tunknown\tattempt 1\t${effect.idempotencyKey}\tpush to prod`);
  const badState = await runCli(["effect", "resolve", task.id, "--effect", effect.id, "--version", String(released.version), "--state", "maybe"], database.url);
  expect(badState.code).not.toBe(0);
  expect(badState.stderr).toMatch(/--state must be applied or failed/);
  const resolved = await runCli(["effect", "resolve", task.id, "--effect", effect.id, "--version", String(released.version), "--state", "applied", "--ref", "deploy-77"], database.url);
  expect(resolved, resolved.stderr).toMatchObject({ code: 0, stdout: `effect ${effect.id} of task ${task.id} is applied\n` });
  expect((await runCli(["effect", "list", task.id], database.url)).stdout).toContain("\tapplied\t");
});
