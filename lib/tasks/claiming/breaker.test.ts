import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claim, claimNext, renew, resetBreaker, setQueueSettings, sweepExpiredLeases, type ActorRef,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { failure, queueEvents, queueRow, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let supervisor: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  [amal, bilal, supervisor] = [await f.actor("Amal"), await f.actor("Bilal"), await f.actor("Sara")];
});
afterAll(async () => {
  await f?.close();
});

const ownerOf = async (id: string) => (await taskRow(f.db, id)).ownerId;

describe("circuit breaker", () => {
  test("expiries past the threshold stop reclaiming; fresh work still flows; a reset re-enables it", async () => {
    const queue = await f.queue("spike");
    await f.must(setQueueSettings, { queue, expiryThreshold: 3 }, supervisor);
    const lapsing = [];
    for (let i = 0; i < 5; i++) lapsing.push(await f.task(`lapsing ${i}`, { queue }));
    for (let i = 0; i < 5; i++) await f.must(claimNext, { queue }, amal);
    f.clock.advance(121);
    const fresh = [await f.task("fresh 1", { queue }), await f.task("fresh 2", { queue })];

    // The lapsed tasks are older, so they come first — but only three of them.
    const got = [];
    for (let i = 0; i < 6; i++) got.push((await f.must(claimNext, { queue }, bilal))?.id ?? null);
    expect(got).toEqual([lapsing[0]!.id, lapsing[1]!.id, lapsing[2]!.id, fresh[0]!.id, fresh[1]!.id, null]);

    expect(await queueEvents(f.db, queue, "lease_expired")).toHaveLength(3);
    const trips = await queueEvents(f.db, queue, "breaker_tripped");
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({ taskId: null, payload: { cause: "expiry_spike", threshold: 3, expiries: 3 } });
    expect((await queueRow(f.db, queue)).breakerTrippedAt).toEqual(f.clock.time);
    for (const t of lapsing.slice(3)) expect(await taskRow(f.db, t.id)).toMatchObject({ status: "claimed", ownerId: amal.id, version: 2 });

    // While tripped, neither a targeted claim nor a sweep reclaims them, and nothing trips twice.
    failure(await f.run(claim, { taskId: lapsing[3]!.id, version: 2 }, bilal), "invalid_transition");
    expect(await f.must(sweepExpiredLeases, { queue }, supervisor)).toEqual({ expired: 0, stopped: [queue] });
    expect(await queueEvents(f.db, queue, "lease_expired")).toHaveLength(3);
    expect(await queueEvents(f.db, queue, "breaker_tripped")).toHaveLength(1);

    await f.must(resetBreaker, { queue }, supervisor);
    expect(await queueEvents(f.db, queue, "breaker_reset")).toMatchObject([{ actorId: supervisor.id, taskId: null }]);
    expect((await queueRow(f.db, queue)).breakerTrippedAt).toBeNull();
    expect((await f.must(claimNext, { queue }, bilal))?.id).toBe(lapsing[3]!.id);
    expect((await f.must(claimNext, { queue }, bilal))?.id).toBe(lapsing[4]!.id);
    for (const t of lapsing) expect(await ownerOf(t.id)).toBe(bilal.id);
    expect(await queueEvents(f.db, queue, "lease_expired")).toHaveLength(5);
  });

  test("a clock moving backwards trips the breaker (clock_backwards) and nothing is reclaimed until a reset", async () => {
    const queue = "clock";
    f.clock.advance(3600); // past anything earlier tests wrote
    const t0 = f.clock.time.getTime();
    const lapsing = await f.task("lapses at T+60", { queue });
    await f.must(claimNext, { queue, leaseSeconds: 60 }, amal);
    const longRunning = await f.task("long lease", { queue });
    await f.must(claimNext, { queue, leaseSeconds: 3600 }, amal);
    f.clock.set(new Date(t0 + 120_000));
    await f.must(renew, { taskId: longRunning.id, version: 2 }, amal); // an event at T+120

    f.clock.set(new Date(t0 + 90_000)); // back in time, yet the T+60 lease has lapsed
    expect(await f.must(claimNext, { queue }, bilal)).toBeNull();
    const trips = await queueEvents(f.db, queue, "breaker_tripped");
    expect(trips).toMatchObject([{ payload: { cause: "clock_backwards" } }]);
    expect((await queueRow(f.db, queue)).breakerTrippedAt).toEqual(f.clock.time);
    expect(await taskRow(f.db, lapsing.id)).toMatchObject({ status: "claimed", ownerId: amal.id, version: 2 });
    expect(await queueEvents(f.db, queue, "lease_expired")).toEqual([]);

    await f.must(resetBreaker, { queue }, supervisor);
    const taken = await f.must(claimNext, { queue }, bilal);
    expect(taken).toMatchObject({ id: lapsing.id, owner: { id: bilal.id }, version: 4 });
    expect(await queueEvents(f.db, queue, "lease_expired")).toHaveLength(1);
  });

  test("resetting a breaker that is not tripped is invalid_transition and writes no event", async () => {
    const queue = "calm";
    await f.task("calm", { queue });
    failure(await f.run(resetBreaker, { queue }, supervisor), "invalid_transition");
    expect(await queueEvents(f.db, queue, "breaker_reset")).toEqual([]);
  });
});
