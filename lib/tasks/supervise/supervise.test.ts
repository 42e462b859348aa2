import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cancel, claim, failTask, forceRelease, recordSideEffect, requeue, resolve, setQueueSettings, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let supervisor: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  supervisor = await f.actor("Sara");
  await f.queue("inbox");
  await f.must(setQueueSettings, { queue: "inbox", maxFailures: 1 }, supervisor);
});
afterAll(async () => {
  await f?.close();
});

/** A task escalated after one failure (queue "inbox" has max_failures 1), at version 3. */
async function escalated() {
  const task = await f.task("escalated", { queue: "inbox" });
  await f.must(claim, { taskId: task.id, version: 1 }, amal);
  await f.must(failTask, { taskId: task.id, version: 2, reason: "gave up" }, amal);
  return task;
}

describe("supervisor decisions", () => {
  test("resolve settles an escalated task as done", async () => {
    const task = await escalated();
    await f.must(resolve, { taskId: task.id, version: 3, reason: "done by hand" }, supervisor);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "done", version: 4 });
    expect((await eventsOf(f.db, task.id)).at(-1)).toMatchObject({ type: "resolved", actorId: supervisor.id });
  });

  test("cancel drops an escalated or a queued task, but not a claimed one", async () => {
    const fromInbox = await escalated();
    await f.must(cancel, { taskId: fromInbox.id, version: 3 }, supervisor);
    expect(await taskRow(f.db, fromInbox.id)).toMatchObject({ status: "cancelled", version: 4 });

    const queued = await f.task("never claimed", { queue: "inbox" });
    await f.must(cancel, { taskId: queued.id, version: 1 }, supervisor);
    expect(await taskRow(f.db, queued.id)).toMatchObject({ status: "cancelled", version: 2 });

    const held = await f.task("held", { queue: "inbox" });
    await f.must(claim, { taskId: held.id, version: 1 }, amal);
    failure(await f.run(cancel, { taskId: held.id, version: 2 }, supervisor), "invalid_transition");
    expect(await taskRow(f.db, held.id)).toMatchObject({ status: "claimed", version: 2 });
    expect(await eventTypes(f.db, held.id)).toEqual(["created", "claimed"]);
  });

  test("requeue and resolve only apply to escalated tasks; a stale version is version_conflict", async () => {
    const queued = await f.task("queued", { queue: "inbox" });
    failure(await f.run(requeue, { taskId: queued.id, version: 1 }, supervisor), "invalid_transition");
    failure(await f.run(resolve, { taskId: queued.id, version: 1 }, supervisor), "invalid_transition");
    const task = await escalated();
    failure(await f.run(requeue, { taskId: task.id, version: 2 }, supervisor), "version_conflict");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "escalated", failureCount: 1, version: 3 });
  });

  test("force-release takes a held task from its owner, keeping needs_check for a recorded side effect", async () => {
    const task = await f.task("stuck", { queue: "inbox" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    await f.must(recordSideEffect, { taskId: task.id, version: 2, description: "opened a ticket" }, amal);
    await f.must(forceRelease, { taskId: task.id, version: 2 }, supervisor);

    expect(await taskRow(f.db, task.id)).toMatchObject({
      status: "queued", ownerId: null, leaseUntil: null, needsCheck: true, version: 3,
    });
    expect((await eventsOf(f.db, task.id)).at(-1)).toMatchObject({
      type: "released", actorId: supervisor.id, payload: { force: true, previousOwnerId: amal.id, needsCheck: true },
    });
  });
});
