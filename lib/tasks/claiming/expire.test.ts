import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claimNext, recordSideEffect, sweepExpiredLeases, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { queueEvents, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let supervisor: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  // An agent: a person's lapsed lease waits out the queue's person grace before a sweep (person-grace.test.ts).
  amal = await f.actor("Amal", "agent");
  supervisor = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

const rowsOf = (queue: string) =>
  f.db.query.tasks.findMany({ where: (t, { eq }) => eq(t.queue, queue), orderBy: (t, { asc }) => asc(t.id) });

describe("sweepExpiredLeases", () => {
  test("expires only lapsed leases, marking needs_check where a side effect was recorded", async () => {
    const queue = "sweep";
    const tasks = [await f.task("a", { queue }), await f.task("b", { queue }), await f.task("c", { queue })];
    const a = await f.must(claimNext, { queue }, amal);
    const b = await f.must(claimNext, { queue }, amal);
    await f.must(recordSideEffect, { taskId: b!.id, version: 2, description: "charged the card" }, amal);
    f.clock.advance(100);
    const c = await f.must(claimNext, { queue }, amal); // its lease runs 100 s longer
    expect([a!.id, b!.id, c!.id]).toEqual(tasks.map((t) => t.id));
    f.clock.advance(21);

    const result = await f.must(sweepExpiredLeases, { queue }, supervisor);
    expect(result).toEqual({ expired: 2, stopped: [] });
    expect(await taskRow(f.db, a!.id)).toMatchObject({ status: "queued", ownerId: null, leaseUntil: null, needsCheck: false, version: 3 });
    expect(await taskRow(f.db, b!.id)).toMatchObject({ status: "queued", ownerId: null, needsCheck: true, version: 3 });
    expect(await taskRow(f.db, c!.id)).toMatchObject({ status: "claimed", ownerId: amal.id, version: 2 });
    const expired = await queueEvents(f.db, queue, "lease_expired");
    expect(expired).toMatchObject([
      { taskId: BigInt(a!.id), payload: { version: 3, previousOwnerId: amal.id, needsCheck: false } },
      { taskId: BigInt(b!.id), payload: { version: 3, previousOwnerId: amal.id, needsCheck: true } },
    ]);
  });

  test("repeating the sweep changes nothing: no new event, same versions", async () => {
    const queue = "sweep-twice";
    for (const title of ["a", "b", "c"]) await f.task(title, { queue });
    for (let i = 0; i < 3; i++) await f.must(claimNext, { queue }, amal);
    f.clock.advance(121);

    expect(await f.must(sweepExpiredLeases, { queue }, supervisor)).toEqual({ expired: 3, stopped: [] });
    const rowsAfterFirst = await rowsOf(queue);
    const eventsAfterFirst = await queueEvents(f.db, queue);

    f.clock.advance(30);
    expect(await f.must(sweepExpiredLeases, { queue }, supervisor)).toEqual({ expired: 0, stopped: [] });
    expect(await rowsOf(queue)).toEqual(rowsAfterFirst);
    expect(await queueEvents(f.db, queue)).toEqual(eventsAfterFirst);
    expect(rowsAfterFirst.map((r) => [r.status, r.version])).toEqual([["queued", 3], ["queued", 3], ["queued", 3]]);
  });
});
