import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, failTask, requeue, setQueueSettings, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, queueRow, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let supervisor: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  supervisor = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

/** Amal claims the next task of `queue` and fails it; returns the task as the fail left it. */
async function claimAndFail(queue: string, reason: string) {
  const claimed = await f.must(claimNext, { queue }, amal);
  if (!claimed) throw new Error(`nothing to claim in ${queue}`);
  return f.must(failTask, { taskId: claimed.id, version: claimed.version, reason }, amal);
}

describe("fail and escalation", () => {
  test("three failures escalate (default max_failures 3); claim-next never hands it out; requeue resets the count", async () => {
    const queue = "flaky";
    const task = await f.task("flaky", { queue });
    expect((await queueRow(f.db, queue)).maxFailures).toBe(3);

    expect(await claimAndFail(queue, "timeout 1")).toMatchObject({ status: "queued", failureCount: 1 });
    expect(await claimAndFail(queue, "timeout 2")).toMatchObject({ status: "queued", failureCount: 2 });
    expect(await claimAndFail(queue, "timeout 3")).toMatchObject({ status: "escalated", failureCount: 3 });
    expect(await taskRow(f.db, task.id)).toMatchObject({
      status: "escalated", ownerId: null, leaseUntil: null, failureCount: 3, version: 7,
    });
    const events = await eventsOf(f.db, task.id);
    expect(events.slice(-2)).toMatchObject([
      { type: "failed", payload: { reason: "timeout 3", failureCount: 3, version: 7 } },
      { type: "escalated", payload: { version: 7 } },
    ]);

    // However much time passes, an escalated task is never handed out again by claim-next or claim.
    f.clock.advance(3600);
    expect(await f.must(claimNext, { queue }, amal)).toBeNull();
    failure(await f.run(claim, { taskId: task.id, version: 7 }, amal), "invalid_transition");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "escalated", version: 7 });

    // A supervisor requeues: failure_count back to 0, claimable again.
    await f.must(requeue, { taskId: task.id, version: 7, reason: "fixed the upstream" }, supervisor);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "queued", failureCount: 0, version: 8 });
    expect((await eventsOf(f.db, task.id)).at(-1)).toMatchObject({
      type: "requeued", actorId: supervisor.id, payload: { version: 8, reason: "fixed the upstream" },
    });
    expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: task.id, failureCount: 0, version: 9 });
  });

  test("a queue's own max_failures decides: with 1, the first failure escalates", async () => {
    const queue = await f.queue("one-strike");
    await f.must(setQueueSettings, { queue, maxFailures: 1 }, supervisor);
    const task = await f.task("fragile", { queue });
    expect(await claimAndFail(queue, "broken")).toMatchObject({ status: "escalated", failureCount: 1 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "failed", "escalated"]);
  });

  test("only the owner may fail a task", async () => {
    const queue = "fail-owner";
    const task = await f.task("held", { queue });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    failure(await f.run(failTask, { taskId: task.id, version: 2, reason: "not mine" }, supervisor), "not_owner");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "claimed", failureCount: 0, version: 2 });
  });
});
