import { afterAll, beforeAll, expect, test } from "vitest";
import { claim, failTask, foldEvents, perform, requeueTo, setQueueSettings, taskHistory, type ActorRef } from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { eventTypes, taskRow } from "@/test/inspect";

// "Requeue to…" (issue 27 item 6): an escalated task moved to another queue and requeued
// there, in one transaction.

const asSupervisor = withStanding(requeueTo, "supervisor");
let f: EngineFixture;
let agent: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("robot", "agent");
  sara = await f.actor("Sara");
  await f.queue("bots");
  await f.queue("people");
  await f.queue("closed", { archivedAt: new Date() });
  await f.must(setQueueSettings, { queue: "bots", maxFailures: 1 }, sara);
});
afterAll(async () => {
  await f?.close();
});

async function escalated() {
  const task = await f.task("escalated", { queue: "bots" });
  await f.must(claim, { taskId: task.id, version: 1 }, agent);
  await f.must(failTask, { taskId: task.id, version: 2, reason: "needs a person" }, agent);
  return task;
}

test("the task moves and is requeued there: edited then requeued, failures reset, and the history replays", async () => {
  const task = await escalated();
  const done = await f.must(asSupervisor, { taskId: task.id, version: 3, queue: "people", reason: "a person should look" }, sara);
  expect(done).toMatchObject({ queue: "people", status: "queued", version: 5, failureCount: 0 });
  expect((await eventTypes(f.db, task.id)).slice(-2)).toEqual(["edited", "requeued"]);
  expect(foldEvents(await taskHistory(f.db, task.id))).toMatchObject({ queue: "people", status: "queued", version: 5 });
});

test("to an archived queue: refused, and nothing is written; a stale version neither", async () => {
  const task = await escalated();
  const refused = await f.run(asSupervisor, { taskId: task.id, version: 3, queue: "closed" }, sara);
  expect(refused.ok).toBe(false);
  const stale = await f.run(asSupervisor, { taskId: task.id, version: 2, queue: "people" }, sara);
  expect(stale).toMatchObject({ ok: false, error: { code: "version_conflict" } });
  expect(await taskRow(f.db, task.id)).toMatchObject({ queue: "bots", status: "escalated", version: 3 });
});

test("a queued task is not requeued: the move is rolled back with the refusal", async () => {
  const task = await f.task("queued", { queue: "bots" });
  const refused = await f.run(asSupervisor, { taskId: task.id, version: 1, queue: "people" }, sara);
  expect(refused.ok).toBe(false);
  expect(await taskRow(f.db, task.id)).toMatchObject({ queue: "bots", status: "queued", version: 1 });
});

test("only a supervisor may: a staff standing is refused before anything runs", async () => {
  const task = await escalated();
  const refused = await perform(requeueTo, { taskId: task.id, version: 3, queue: "people" }, { db: f.db, actor: sara, clock: f.clock, standing: "staff" });
  expect(refused).toMatchObject({ ok: false, error: { code: "forbidden" } });
  expect(await taskRow(f.db, task.id)).toMatchObject({ queue: "bots", version: 3 });
});
