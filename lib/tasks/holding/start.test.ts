import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, start, sweepExpiredLeases, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, taskRow } from "@/test/inspect";

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

/** A task in its own queue, claimed by Amal at version 2 with the default 120 s lease. */
async function claimedByAmal(queue: string) {
  const task = await f.task(queue, { queue });
  await f.must(claim, { taskId: task.id, version: 1 }, amal);
  return task;
}

describe("start", () => {
  test("the owner starts a claimed task within its lease: started, version + 1", async () => {
    const task = await claimedByAmal("in-time");
    f.clock.advance(119);
    await f.must(start, { taskId: task.id, version: 2 }, amal);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "started", ownerId: amal.id, version: 3 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started"]);
  });

  test("after the lease lapsed and nobody reclaimed: the previous owner's start is lease_expired", async () => {
    const task = await claimedByAmal("lapsed-unclaimed");
    f.clock.advance(120); // lease_until = now: a lease is valid only while lease_until > now
    const before = await taskRow(f.db, task.id);

    const error = failure(await f.run(start, { taskId: task.id, version: 2 }, amal), "lease_expired");
    expect(error.task?.owner?.id).toBe(amal.id);
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
  });

  test("after the lease lapsed and someone reclaimed: the previous owner's start is not_owner", async () => {
    const task = await claimedByAmal("lapsed-reclaimed");
    f.clock.advance(121);
    const taken = await f.must(claimNext, { queue: "lapsed-reclaimed" }, bilal);
    expect(taken?.id).toBe(task.id);
    const before = await taskRow(f.db, task.id);

    const error = failure(await f.run(start, { taskId: task.id, version: 2 }, amal), "not_owner");
    expect(error.message).toContain("Bilal");
    failure(await f.run(start, { taskId: task.id, version: 4 }, amal), "not_owner"); // even with the current version
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect(before).toMatchObject({ status: "claimed", ownerId: bilal.id, version: 4 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "lease_expired", "claimed"]);
  });

  test("after a sweep materialised the expiry: the previous owner's start is still lease_expired", async () => {
    // Whether a sweep ran is invisible to the owner; it must get the same answer as with lazy expiry.
    const task = await claimedByAmal("lapsed-swept");
    f.clock.advance(121 + 300); // and past the person grace, which the sweep honours
    expect(await f.must(sweepExpiredLeases, { queue: "lapsed-swept" }, bilal)).toMatchObject({ expired: 1 });

    failure(await f.run(start, { taskId: task.id, version: 2 }, amal), "lease_expired");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "queued", ownerId: null, version: 3 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "lease_expired"]);
  });

  test("a start by someone else is not_owner; a start with a stale version is version_conflict", async () => {
    const task = await claimedByAmal("wrong-caller");
    failure(await f.run(start, { taskId: task.id, version: 2 }, bilal), "not_owner");
    failure(await f.run(start, { taskId: task.id, version: 1 }, amal), "version_conflict");
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "claimed", ownerId: amal.id, version: 2 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
  });

  test("a retried start that already took effect answers ok and writes no second started", async () => {
    const task = await claimedByAmal("retry");
    await f.must(start, { taskId: task.id, version: 2 }, amal);
    const again = await f.must(start, { taskId: task.id, version: 2 }, amal);
    expect(again).toMatchObject({ status: "started", version: 3 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started"]);
  });

  test("a retried start still answers ok after someone else's claim was rejected in between", async () => {
    const task = await claimedByAmal("retry-after-rejection");
    await f.must(start, { taskId: task.id, version: 2 }, amal);
    failure(await f.run(claim, { taskId: task.id, version: 3 }, bilal), "already_claimed");
    expect(await f.must(start, { taskId: task.id, version: 2 }, amal)).toMatchObject({ status: "started", version: 3 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started", "claim_rejected"]);
  });
});
