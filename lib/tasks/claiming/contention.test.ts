import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LOCK_TIMEOUT_MS } from "@/db/client";
import { claim, claimNext, TARGETED_CLAIM_LOCK_TIMEOUT_MS, type ActorRef } from "@/lib/tasks";
import { holdRowLock, independentClients } from "@/test/clients";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, queueEvents, taskRow } from "@/test/inspect";

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => {
  await f?.close();
});

describe("contention", () => {
  test("32 clients at a barrier against 20 tasks: 20 distinct tasks handed out, 12 told no work, 20 claimed events", async () => {
    const queue = "stampede";
    for (let i = 0; i < 20; i++) await f.task(`job ${i}`, { queue });
    const actors: ActorRef[] = [];
    for (let i = 0; i < 32; i++) actors.push(await f.actor(`agent-${i}`, "agent"));
    const clients = await independentClients(f.database, 32);

    const results = await Promise.all(clients.map((c, i) => f.must(claimNext, { queue }, actors[i]!, c.db)));

    const handedOut = results.filter((t) => t !== null);
    expect(handedOut).toHaveLength(20);
    expect(results.filter((t) => t === null)).toHaveLength(12);
    expect(new Set(handedOut.map((t) => t.id)).size).toBe(20);

    // The database agrees: every task claimed once, by the client that was told it got it.
    const rows = await f.db.query.tasks.findMany({ where: (t, { eq }) => eq(t.queue, queue) });
    expect(rows.every((r) => r.status === "claimed" && r.version === 2)).toBe(true);
    const ownerOf = new Map(rows.map((r) => [r.id.toString(), r.ownerId]));
    results.forEach((t, i) => t && expect(ownerOf.get(t.id)).toBe(actors[i]!.id));
    const claimed = await queueEvents(f.db, queue, "claimed");
    expect(claimed).toHaveLength(20);
    expect(new Set(claimed.map((e) => e.taskId)).size).toBe(20);
  });

  test("a row locked by an open transaction: claim-next skips it, a targeted claim answers busy in time, then it is claimable", async () => {
    const queue = "locked";
    const amal = await f.actor("Amal");
    const bilal = await f.actor("Bilal");
    const top = await f.task("top", { queue, priority: 10 });
    const next = await f.task("next", { queue, priority: 5 });
    const holder = await holdRowLock(f.database.url, top.id);
    try {
      // SKIP LOCKED: the best row is held, so the next one comes back at once.
      expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: next.id, owner: { id: amal.id } });

      const began = performance.now();
      const busy = failure(await f.run(claim, { taskId: top.id, version: 1 }, bilal), "busy");
      const elapsed = performance.now() - began;
      // Not a timing test: it proves the call comes back (waiting at most lock_timeout) instead of hanging.
      expect(elapsed).toBeLessThan(TARGETED_CLAIM_LOCK_TIMEOUT_MS + 4000);
      expect(busy.message).toMatch(/retry/);
      expect(busy.task).toMatchObject({ id: top.id, status: "queued", version: 1 });
      expect(await taskRow(f.db, top.id)).toMatchObject({ status: "queued", ownerId: null, version: 1 });
      expect(await eventTypes(f.db, top.id)).toEqual(["created"]);
    } finally {
      await holder.release();
    }

    expect(await f.must(claim, { taskId: top.id, version: 1 }, bilal)).toMatchObject({ id: top.id, version: 2 });
    expect(await taskRow(f.db, top.id)).toMatchObject({ status: "claimed", ownerId: bilal.id, version: 2 });
    expect(await eventTypes(f.db, top.id)).toEqual(["created", "claimed"]);
  });

  test("a targeted claim of a task that reserves waits on the reservations lock only its own lock_timeout, then answers busy", async () => {
    // The claim's SET LOCAL lock_timeout must be in force before the reservations lock's
    // statement, which may wait: a change that sends them together (one round trip) keeps it so.
    const task = await f.task("migrate", { queue: "reserving", reserves: [{ resource: "db/**", mode: "exclusive" }] });
    const holder = postgres(f.database.url, { max: 1, onnotice: () => {} });
    const held = await holder.reserve();
    await held`BEGIN`;
    await held`SELECT pg_advisory_xact_lock(hashtext('claimboard:reservations'))`;
    try {
      const began = performance.now();
      const busy = failure(await f.run(claim, { taskId: task.id, version: 1 }, await f.actor("Chen")), "busy");
      const elapsed = performance.now() - began;
      expect(elapsed).toBeGreaterThanOrEqual(TARGETED_CLAIM_LOCK_TIMEOUT_MS - 100);
      expect(elapsed).toBeLessThan(LOCK_TIMEOUT_MS - 1000); // its own 1 s, not the connection's 5 s
      expect(busy.task).toMatchObject({ id: task.id, status: "queued", version: 1 });
    } finally {
      await held`ROLLBACK`;
      held.release();
      await holder.end({ timeout: 5 });
    }
    expect(await eventTypes(f.db, task.id)).toEqual(["created"]);
  });

  test("claim-next with only locked rows left answers null at once rather than waiting", async () => {
    const queue = "all-locked";
    const only = await f.task("only", { queue });
    const holder = await holdRowLock(f.database.url, only.id);
    try {
      expect(await f.must(claimNext, { queue }, await f.actor("Amal"))).toBeNull();
    } finally {
      await holder.release();
    }
    expect(await taskRow(f.db, only.id)).toMatchObject({ status: "queued", version: 1 });
  });
});
