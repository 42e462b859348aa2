import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { askQuestion, claim, claimNext, complete, perform, start, type ActorRef } from "@/lib/tasks";
import { createActor } from "@/lib/tasks/core/actors";
import { heldLeases } from "@/lib/tasks/claiming/held";
import { listTasks, listTasksQuery, ownedBy } from "@/lib/tasks/reads/queries";
import { countTasks, countTasksQuery } from "@/lib/tasks/queues/counts";
import { readFleet } from "@/lib/fleet";
import { migrateDatabase } from "@/db/migrate";
import type { Db } from "@/db/client";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { heldSetDrift } from "@/test/inspect";

// Since migration 0033 no index of task_state names the owner of a held task (design q step
// 4a, piece 3): a held task's owner is found in task_held (task_held_owner), a settled task's
// by settled_owner (tasks_settled_owner), so a claim changes no indexed value of the owner.
// "Mine", presence renewal and the fleet read both.

const mine = async (db: Db, actor: ActorRef) =>
  (await listTasks(db, listTasksQuery.parse({ owner: "me" }), actor)).items.map((t) => [t.title, t.status]);

describe("the owner, held and settled", () => {
  let f: EngineFixture;
  let amal: ActorRef;
  let bilal: ActorRef;
  const queue = "settled-owner";

  beforeAll(async () => {
    f = await engineFixture();
    amal = await f.actor("Amal", "agent");
    bilal = await f.actor("Bilal", "agent");
    await f.queue(queue, { leaseSeconds: 30 });
  });
  afterAll(async () => {
    await f?.close();
  });

  test("no index of task_state names owner_id", async () => {
    const indexes = (await f.database.client`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'task_state'`) as unknown as { indexname: string; indexdef: string }[];
    expect(indexes.filter((i) => /\bowner_id\b/.test(i.indexdef)).map((i) => i.indexname)).toEqual([]);
    expect(indexes.map((i) => i.indexname)).toContain("tasks_settled_owner");
  });

  test("mine holds every task the caller owns, held or settled, through claims, a lapse and a reclaim by someone else", async () => {
    const made = [];
    for (const title of ["claimed", "started", "asked", "done", "left queued"]) made.push(await f.task(title, { queue }));
    const [claimed, started, asked, done] = made; // the fifth stays queued: no one's
    const c = await f.must(claim, { taskId: claimed!.id, version: claimed!.version }, amal);
    const claimAndStart = async (t: { id: string; version: number }) =>
      f.must(start, { taskId: t.id, version: (await f.must(claim, { taskId: t.id, version: t.version }, amal)).version }, amal);
    const s = await claimAndStart(started!);
    const a = await claimAndStart(asked!);
    await f.must(askQuestion, { taskId: a.id, version: a.version, question: "Which region?" }, amal);
    const d = await claimAndStart(done!);
    await f.must(complete, { taskId: d.id, version: d.version }, amal);

    const owned = [["claimed", "claimed"], ["started", "started"], ["asked", "awaiting_input"], ["done", "done"]];
    expect(await mine(f.db, amal)).toEqual(owned);
    expect(await mine(f.db, bilal)).toEqual([]);
    const counts = await countTasks(f.db, countTasksQuery.parse({ owner: "me", queue }), amal);
    expect(counts.statuses).toMatchObject({ queued: 0, claimed: 1, started: 1, awaiting_input: 1, done: 1 });
    const held = await perform(heldLeases, { renew: false }, { db: f.db, actor: amal, clock: f.clock });
    expect(held.ok && held.value.map((h) => h.task.title)).toEqual(["claimed", "started"]);

    // Both leases lapse; Bilal's claim takes the first back. The held row names its new owner.
    f.clock.advance(31);
    const reclaimed = (await f.must(claimNext, { queue }, bilal))!;
    expect(reclaimed).toMatchObject({ id: c.id, owner: { id: bilal.id } });
    expect(await mine(f.db, amal)).toEqual(owned.slice(1));
    expect(await mine(f.db, bilal)).toEqual([["claimed", "claimed"]]);
    const [row] = (await f.database.client`SELECT owner_id::text FROM task_held WHERE id = ${c.id}::bigint`) as unknown as { owner_id: string }[];
    expect(row!.owner_id).toBe(bilal.id);
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });

    // The fleet: both agents worked; each one's held rows are its own.
    const fleet = await readFleet(f.db);
    const heldBy = (actor: ActorRef) => fleet.agents.find((x) => x.actor.id === actor.id)?.held.map((h) => h.id).sort();
    expect(heldBy(amal)).toEqual([s.id]);
    expect(heldBy(bilal)).toEqual([c.id]);
  });

  test("a claim and a start change neither value the owner's indexes hold", async () => {
    const task = await f.task("watched", { queue });
    const values = async () =>
      (await f.database.client`
        SELECT s.settled_owner::text, (SELECT h.owner_id::text FROM task_held h WHERE h.id = s.id) AS held_owner
        FROM task_state s WHERE s.id = ${task.id}::bigint`)[0];
    expect(await values()).toEqual({ settled_owner: null, held_owner: null });
    const c = await f.must(claim, { taskId: task.id, version: task.version }, amal);
    expect(await values()).toEqual({ settled_owner: null, held_owner: amal.id });
    const s = await f.must(start, { taskId: task.id, version: c.version }, amal);
    expect(await values()).toEqual({ settled_owner: null, held_owner: amal.id });
    await f.must(complete, { taskId: task.id, version: s.version }, amal);
    expect(await values()).toEqual({ settled_owner: amal.id, held_owner: null });
  });

  test("mine can be answered by the two owner indexes, without reading the table", async () => {
    const plans: string[] = [];
    await f.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      const rows = await tx.execute<{ "QUERY PLAN": string }>(sql`EXPLAIN SELECT id FROM task_state WHERE ${ownedBy(amal.id)}`);
      plans.push(rows.map((r) => r["QUERY PLAN"]).join("\n"));
    });
    expect(plans[0]).toMatch(/tasks_settled_owner/);
    expect(plans[0]).toMatch(/task_held_owner/);
  });
});

const HOLDER = "22222222-2222-4222-8222-222222222222";

describe("migration 0033 on a database with owned tasks in every state", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 32 });
    await database.client`INSERT INTO actors (id, kind, name) VALUES (${HOLDER}, 'agent', 'old-bot')`;
    await database.client`INSERT INTO queues (name, lease_seconds) VALUES ('old', 60)`;
    await database.client`
      WITH made AS (
        INSERT INTO task_state (queue, priority, status, owner_id, lease_until, lease_seconds, version, attempt)
        VALUES
          ('old', 9, 'claimed', ${HOLDER}, now() + interval '1 hour', 3600, 2, 1),
          ('old', 8, 'started', ${HOLDER}, now() - interval '1 minute', 60, 3, 1),
          ('old', 7, 'awaiting_input', ${HOLDER}, NULL, NULL, 4, 1),
          ('old', 6, 'done', ${HOLDER}, NULL, NULL, 4, 1),
          ('old', 5, 'escalated', NULL, NULL, NULL, 7, 3),
          ('old', 4, 'queued', NULL, NULL, NULL, 1, 0)
        RETURNING id, priority)
      INSERT INTO task_content (id, title) SELECT id, 'Old task ' || priority FROM made`;
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("held rows carry their owner, settled_owner is the owner of the settled tasks, and the sets have no drift", async () => {
    const rows = await database.client`
      SELECT s.priority, s.settled_owner::text, h.owner_id::text AS held_owner
      FROM task_state s LEFT JOIN task_held h ON h.id = s.id ORDER BY s.priority DESC`;
    expect(rows).toEqual([
      { priority: 9, settled_owner: null, held_owner: HOLDER },
      { priority: 8, settled_owner: null, held_owner: HOLDER },
      { priority: 7, settled_owner: HOLDER, held_owner: null },
      { priority: 6, settled_owner: HOLDER, held_owner: null },
      { priority: 5, settled_owner: null, held_owner: null },
      { priority: 4, settled_owner: null, held_owner: null },
    ]);
    expect(await heldSetDrift(database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });

  test("the old owner's work is still theirs, and a lapsed lease moves to the next claimer", async () => {
    const old = { id: HOLDER, name: "old-bot", kind: "agent" as const };
    expect(await mine(database.db, old)).toEqual([
      ["Old task 9", "claimed"], ["Old task 8", "started"], ["Old task 7", "awaiting_input"], ["Old task 6", "done"],
    ]);
    const worker = await createActor(database.db, "agent", "new-bot");
    const taken = await perform(claimNext, { queue: "old" }, { db: database.db, actor: worker });
    if (!taken.ok) throw new Error(taken.error.message);
    expect(taken.value?.title).toBe("Old task 8"); // the lapsed lease, before the queued task
    expect(await mine(database.db, worker)).toEqual([["Old task 8", "claimed"]]);
    expect(await mine(database.db, old)).toEqual([["Old task 9", "claimed"], ["Old task 7", "awaiting_input"], ["Old task 6", "done"]]);
    expect(await heldSetDrift(database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });
});
