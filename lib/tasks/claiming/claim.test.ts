import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, release, start } from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, taskRow } from "@/test/inspect";

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => {
  await f?.close();
});

describe("claim (a given task)", () => {
  test("two simultaneous claims: exactly one owner, the loser is told already_claimed by name, one claimed and one claim_rejected", async () => {
    const amal = await f.actor("Amal");
    const bilal = await f.actor("Bilal");
    // Several rounds, so both "loser waited on the row lock" and "loser came after the commit" get exercised.
    for (let round = 0; round < 5; round++) {
      const task = await f.task(`race ${round}`, { queue: "race" });
      const [a, b] = await independentClients(f.database, 2);
      const results = await Promise.all([
        f.run(claim, { taskId: task.id, version: 1 }, amal, a!.db),
        f.run(claim, { taskId: task.id, version: 1 }, bilal, b!.db),
      ]);

      const winners = results.flatMap((r, i) => (r.ok ? [[amal, bilal][i]!] : []));
      expect(winners).toHaveLength(1);
      const [winner] = winners;
      const loser = winner === amal ? bilal : amal;
      const lost = failure(results.find((r) => !r.ok)!, "already_claimed");
      expect(lost.message).toContain(winner!.name);

      const row = await taskRow(f.db, task.id);
      expect(row).toMatchObject({ status: "claimed", ownerId: winner!.id, version: 2 });
      const events = await eventsOf(f.db, task.id);
      expect(events.map((e) => [e.type, e.actorId])).toEqual([
        ["created", expect.any(String)],
        ["claimed", winner!.id],
        ["claim_rejected", loser.id],
      ]);
    }
  });

  test("a claim expecting a stale version of a queued task is version_conflict, logged, and changes nothing", async () => {
    const amal = await f.actor("Amal");
    const task = await f.task("stale", { queue: "stale" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    await f.must(release, { taskId: task.id, version: 2 }, amal);
    const before = await taskRow(f.db, task.id);

    const error = failure(await f.run(claim, { taskId: task.id, version: 1 }, amal), "version_conflict");
    expect(error.task?.version).toBe(3);
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "released", "claim_rejected"]);
  });

  test("a claim of a task with a lapsed lease reclaims it: lease_expired then claimed, two versions", async () => {
    const amal = await f.actor("Amal");
    const bilal = await f.actor("Bilal");
    const task = await f.task("lapsed", { queue: "lapsed" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);

    f.clock.advance(60); // the lease (120 s) still runs: a claim loses
    failure(await f.run(claim, { taskId: task.id, version: 2 }, bilal), "already_claimed");
    f.clock.advance(61);
    const taken = await f.must(claim, { taskId: task.id, version: 2 }, bilal);
    expect(taken.owner?.id).toBe(bilal.id);

    const row = await taskRow(f.db, task.id);
    expect(row).toMatchObject({ status: "claimed", ownerId: bilal.id, version: 4 });
    expect(row.leaseUntil?.getTime()).toBe(f.clock.time.getTime() + 120_000);
    const events = await eventsOf(f.db, task.id);
    expect(events.map((e) => e.type)).toEqual(["created", "claimed", "claim_rejected", "lease_expired", "claimed"]);
    expect(events[3]!.payload).toMatchObject({ version: 3, previousOwnerId: amal.id, needsCheck: false });
  });

  test("a done task cannot be claimed: invalid_transition, nothing changes", async () => {
    const amal = await f.actor("Amal");
    const task = await f.task("finished", { queue: "finished" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    await f.must(start, { taskId: task.id, version: 2 }, amal);
    await f.must(complete, { taskId: task.id, version: 3 }, amal);
    const before = await taskRow(f.db, task.id);

    failure(await f.run(claim, { taskId: task.id, version: 4 }, amal), "invalid_transition");
    expect(await taskRow(f.db, task.id)).toEqual(before);
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "started", "completed"]);
  });
});
