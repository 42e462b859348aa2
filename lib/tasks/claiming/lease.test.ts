import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, claimNext, recordSideEffect, renew, start, type ActorRef } from "@/lib/tasks";
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

describe("renew (heartbeat)", () => {
  test("a renewal by a non-owner is not_owner and leaves the lease alone", async () => {
    const task = await f.task("held", { queue: "non-owner" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    const before = await taskRow(f.db, task.id);
    f.clock.advance(30);

    const error = failure(await f.run(renew, { taskId: task.id, version: 2 }, bilal), "not_owner");
    expect(error.message).toContain("Amal");
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
  });

  test("a renewal by the owner moves lease_until to now + lease and keeps the version", async () => {
    const task = await f.task("held", { queue: "owner" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    await f.must(start, { taskId: task.id, version: 2 }, amal);
    const before = await taskRow(f.db, task.id);
    f.clock.advance(100);

    await f.must(renew, { taskId: task.id, version: 3, progress: { done: 40 } }, amal);
    const after = await taskRow(f.db, task.id);
    expect(after.leaseUntil!.getTime()).toBe(f.clock.time.getTime() + 120_000);
    expect(after.leaseUntil!.getTime()).toBeGreaterThan(before.leaseUntil!.getTime());
    expect(after).toMatchObject({ status: "started", ownerId: amal.id, version: 3, updatedAt: f.clock.time });

    const heartbeat = (await eventsOf(f.db, task.id)).at(-1)!;
    expect(heartbeat.type).toBe("heartbeat");
    expect(heartbeat.payload).toMatchObject({ version: 3, leaseUntil: after.leaseUntil!.toISOString(), progress: { done: 40 } });
  });

  test("a renewal extends by the claim's own lease length, not the queue's", async () => {
    const task = await f.task("short", { queue: "short-lease" });
    const claimed = await f.must(claimNext, { queue: "short-lease", leaseSeconds: 30 }, amal);
    expect(claimed?.id).toBe(task.id);
    f.clock.advance(20);
    await f.must(renew, { taskId: task.id, version: 2 }, amal);
    expect(await taskRow(f.db, task.id)).toMatchObject({
      leaseSeconds: 30,
      leaseUntil: new Date(f.clock.time.getTime() + 30_000),
    });
  });

  test("a renewal after the lease lapsed is lease_expired: a lapsed lease may already be someone else's", async () => {
    const task = await f.task("held", { queue: "lapsed" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    f.clock.advance(121);
    const before = await taskRow(f.db, task.id);

    failure(await f.run(renew, { taskId: task.id, version: 2 }, amal), "lease_expired");
    failure(await f.run(recordSideEffect, { taskId: task.id, version: 2, description: "email" }, amal), "lease_expired");
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
  });
});
