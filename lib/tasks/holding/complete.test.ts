import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, complete, start, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  bilal = await f.actor("Bilal");
});
afterAll(async () => {
  await f?.close();
});

/** A task of its own queue, claimed and started by Amal (version 3, lease 120 s). */
async function startedByAmal(queue: string) {
  const task = await f.task(queue, { queue });
  await f.must(claim, { taskId: task.id, version: 1 }, amal);
  await f.must(start, { taskId: task.id, version: 2 }, amal);
  return task;
}

describe("complete", () => {
  test("the owner completes after the lease lapsed and nobody reclaimed: allowed", async () => {
    const task = await startedByAmal("late-complete");
    f.clock.advance(500);

    const done = await f.must(complete, { taskId: task.id, version: 3, result: { ok: 1 } }, amal);
    expect(done).toMatchObject({ status: "done", version: 4 });
    expect(await taskRow(f.db, task.id)).toMatchObject({
      status: "done", ownerId: amal.id, leaseUntil: null, leaseSeconds: null, version: 4, updatedAt: f.clock.time,
    });
    const last = (await eventsOf(f.db, task.id)).at(-1)!;
    expect(last).toMatchObject({ type: "completed", actorId: amal.id, payload: { version: 4, result: { ok: 1 } } });
  });

  test("after someone reclaimed the lapsed task: the old owner's complete is not_owner and changes nothing", async () => {
    const task = await startedByAmal("reclaimed-complete");
    f.clock.advance(121);
    const taken = await f.must(claimNext, { queue: "reclaimed-complete", start: true }, bilal);
    // The lapse (v4) and the claim that started it (one act: v5), in one statement.
    expect(taken).toMatchObject({ id: task.id, status: "started", version: 5 });
    const before = await taskRow(f.db, task.id);

    const error = failure(await f.run(complete, { taskId: task.id, version: 3 }, amal), "not_owner");
    expect(error.message).toContain("Bilal");
    // Even knowing the current version (the error tells it), the old owner cannot complete Bilal's attempt.
    failure(await f.run(complete, { taskId: task.id, version: 5 }, amal), "not_owner");
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect(await eventTypes(f.db, task.id)).toEqual([
      "created", "claimed", "started", "lease_expired", "claimed",
    ]);
  });

  test("a claimed (not started) task cannot be completed: invalid_transition", async () => {
    const task = await f.task("not started", { queue: "claimed-complete" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    failure(await f.run(complete, { taskId: task.id, version: 2 }, amal), "invalid_transition");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "claimed", version: 2 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
  });

  test("a retried complete answers ok with the done task and writes no second completed", async () => {
    const task = await startedByAmal("retry-complete");
    await f.must(complete, { taskId: task.id, version: 3 }, amal);
    expect(await f.must(complete, { taskId: task.id, version: 3 }, amal)).toMatchObject({ status: "done", version: 4 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started", "completed"]);
  });
});
