import { afterAll, beforeAll, expect, test } from "vitest";
import { claim, claimNext, recordSideEffect, renew, start } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => {
  await f?.close();
});

// The seed's worked example, step by step, on a database of its own (the default queue, 120 s leases).
test("the worked example: a lost claim names the owner; a lapsed side effect comes back needs_check", async () => {
  const amal = await f.actor("Amal");
  const bilal = await f.actor("Bilal");
  const t1 = await f.task("T1");
  const t2 = await f.task("T2");

  // T1: Amal claims at v2; Bilal, expecting v1, changes zero rows and is told Amal holds it.
  expect(await f.must(claim, { taskId: t1.id, version: 1 }, amal)).toMatchObject({ status: "claimed", version: 2 });
  const before = await taskRow(f.db, t1.id);
  const lost = failure(await f.run(claim, { taskId: t1.id, version: 1 }, bilal), "already_claimed");
  expect(lost.message).toContain("Amal");
  expect(lost.task).toMatchObject({ version: 2, owner: { id: amal.id, name: "Amal" } });
  expect(await taskRow(f.db, t1.id)).toEqual(before);
  // Amal starts T1 at v3.
  expect(await f.must(start, { taskId: t1.id, version: 2 }, amal)).toMatchObject({ status: "started", version: 3 });

  // T2: claimed and started by Amal in one act (one event, v2), a side effect recorded.
  expect(await f.must(claimNext, { start: true }, amal)).toMatchObject({ id: t2.id, status: "started", version: 2 });
  await f.must(recordSideEffect, { taskId: t2.id, version: 2, description: "emailed the client" }, amal);

  // Amal keeps T1 alive with a heartbeat; T2's lease lapses.
  f.clock.advance(60);
  await f.must(renew, { taskId: t1.id, version: 3 }, amal);
  f.clock.advance(61);

  // Bilal's claim-next gets T2 at v4, needs_check.
  const taken = await f.must(claimNext, {}, bilal);
  expect(taken).toMatchObject({ id: t2.id, status: "claimed", version: 4, needsCheck: true, owner: { id: bilal.id } });
  expect(await taskRow(f.db, t2.id)).toMatchObject({ status: "claimed", ownerId: bilal.id, version: 4, needsCheck: true });

  // Amal's later start of T2 is refused: the task is Bilal's now.
  failure(await f.run(start, { taskId: t2.id, version: 2 }, amal), "not_owner");
  expect(await taskRow(f.db, t1.id)).toMatchObject({ status: "started", ownerId: amal.id, version: 3 });

  // The log: exactly one claim_rejected (T1, Bilal), one lease_expired (T2, needsCheck true).
  const all = [...(await eventsOf(f.db, t1.id)), ...(await eventsOf(f.db, t2.id))];
  const rejected = all.filter((e) => e.type === "claim_rejected");
  const expired = all.filter((e) => e.type === "lease_expired");
  expect(rejected).toHaveLength(1);
  expect(rejected[0]).toMatchObject({ taskId: BigInt(t1.id), actorId: bilal.id, payload: { ownerId: amal.id, version: 2 } });
  expect(expired).toHaveLength(1);
  expect(expired[0]).toMatchObject({ taskId: BigInt(t2.id), payload: { needsCheck: true, previousOwnerId: amal.id, version: 3 } });
  const needsCheck = (await f.db.query.tasks.findMany()).filter((t) => t.needsCheck);
  expect(needsCheck.map((t) => t.id.toString())).toEqual([t2.id]);
  expect((await eventsOf(f.db, t2.id)).map((e) => e.type)).toEqual([
    "created", "claimed", "side_effect", "lease_expired", "claimed",
  ]);
  // T1: created, claimed, claim_rejected, started, heartbeat; T2: the five above — nothing else was written.
  expect(await rowCounts(f.db)).toEqual({ tasks: 2, events: 10 });
});
