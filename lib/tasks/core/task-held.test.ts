import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  answerQuestion, askQuestion, claim, claimNext, complete, failTask, forceRelease, heldLeases, perform, renew, setQueueSettings, start,
  sweepExpiredLeases, type ActorRef,
} from "@/lib/tasks";
import { createActor } from "@/lib/tasks/core/actors";
import { readLapsed } from "@/lib/tasks/supervise/lapsed";
import { readInbox } from "@/lib/tasks/supervise/inbox";
import { migrateDatabase } from "@/db/migrate";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { heldSetDrift } from "@/test/inspect";

// The held set (task_held, migration 0028, docs/data-model.md#the-sets): a row for each claimed or
// started task, written by a trigger on task_state, read by the walks of held tasks (the
// claim's lapsed walk and gate, strikes, the sweep, the inbox's lapsed list). Its leases are
// in task_lease (migration 0034, step 4a piece 3b), a row beside each of its rows.

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
let sara: ActorRef;
const queue = "task-held";

beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  bilal = await f.actor("Bilal", "agent");
  sara = await f.actor("Sara");
  await f.queue(queue, { leaseSeconds: 30 });
});
afterAll(async () => {
  await f?.close();
});

type HeldRow = { id: string; lease_until: Date; attempt_limited: boolean; x: string; lease_x: string };
/**
 * The task's row in the held set with its lease, the lease as a Date (the test client returns
 * timestamps as text); `x` and `lease_x` are the two rows' xmin, which change when a row is written.
 */
const heldRow = async (id: string): Promise<HeldRow | undefined> => {
  const [row] = (await f.database.client`
    SELECT h.id::text, to_json(l.lease_until)#>>'{}' AS lease_until, l.attempt_limited, h.xmin::text AS x, l.xmin::text AS lease_x
    FROM task_held h FULL JOIN task_lease l ON l.id = h.id WHERE coalesce(h.id, l.id) = ${id}::bigint`) as unknown as
    (Omit<HeldRow, "lease_until"> & { lease_until: string })[];
  return row && { ...row, lease_until: new Date(row.lease_until) };
};
const stateLease = async (id: string) => {
  const [row] = (await f.database.client`SELECT to_json(lease_until)#>>'{}' AS at FROM task_state WHERE id = ${id}::bigint`) as unknown as { at: string }[];
  return new Date(row!.at);
};

describe("task_held follows task_state", () => {
  test("through a task's life: claimed and started it is in the set with its lease; queued, parked or done it is not", async () => {
    const task = await f.task("Reconcile ledger", { queue, priority: 4 });
    expect(await heldRow(task.id)).toBeUndefined();

    const claimed = await f.must(claim, { taskId: task.id, version: task.version }, amal);
    expect(await heldRow(task.id)).toMatchObject({ id: task.id, lease_until: await stateLease(task.id) });

    // A start changes nothing the set holds: the trigger's WHEN keeps it from writing the row.
    const before = await heldRow(task.id);
    const started = await f.must(start, { taskId: task.id, version: claimed.version }, amal);
    expect((await heldRow(task.id))!.x).toBe(before!.x);

    // A heartbeat moves the lease: task_lease's row is written, task_held's is not.
    f.clock.advance(10);
    const beat = await f.must(renew, { taskId: task.id, version: started.version }, amal);
    const beaten = await heldRow(task.id);
    expect(beaten!.lease_until).toEqual(beat.leaseUntil);
    expect(beaten!.x).toBe(before!.x);
    expect(beaten!.lease_x).not.toBe(before!.lease_x);

    // Parked on a question, the lease waits: not held, so no walk of lapsed leases finds it.
    const { task: parked, question } = await f.must(askQuestion, { taskId: task.id, version: beat.version, question: "Which month?" }, amal);
    expect(parked.status).toBe("awaiting_input");
    expect(await heldRow(task.id)).toBeUndefined();
    const { task: resumed } = await f.must(answerQuestion, { taskId: task.id, questionId: question.id, text: "November" }, sara);
    expect(resumed.status).toBe("started");
    expect((await heldRow(task.id))!.lease_until).toEqual(resumed.leaseUntil);

    await f.must(failTask, { taskId: task.id, version: resumed.version, reason: "bank API down" }, amal);
    expect(await heldRow(task.id)).toBeUndefined();

    const again = (await f.must(claimNext, { queue, start: true }, bilal))!;
    expect(again.id).toBe(task.id);
    expect(await heldRow(task.id)).toBeDefined();
    await f.must(complete, { taskId: task.id, version: again.version }, bilal);
    expect(await heldRow(task.id)).toBeUndefined();
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });

  test("a lapsed lease is found in the set: reclaimed by the next claim, released by a supervisor, expired by the sweep", async () => {
    const q = await f.queue("task-held-lapse", { leaseSeconds: 30 });
    const [a, b, c] = [await f.task("a", { queue: q }), await f.task("b", { queue: q }), await f.task("c", { queue: q })];
    for (const t of [a, b, c]) await f.must(claim, { taskId: t.id, version: t.version }, amal);
    const firstLease = (await heldRow(a.id))!.lease_until;
    f.clock.advance(31);

    // The gate's probe finds the lapse in task_held; the lapsed walk hands out the best one (a).
    const reclaimed = (await f.must(claimNext, { queue: q }, bilal))!;
    expect(reclaimed).toMatchObject({ id: a.id, owner: { id: bilal.id } });
    const moved = (await heldRow(a.id))!.lease_until;
    expect(moved.getTime()).toBeGreaterThan(firstLease.getTime());
    expect(moved).toEqual(await stateLease(a.id));

    const lapsed = await f.database.client`SELECT version FROM task_state WHERE id = ${b.id}::bigint`;
    await f.must(forceRelease, { taskId: b.id, version: Number(lapsed[0]!.version) }, sara);
    expect(await heldRow(b.id)).toBeUndefined();

    expect(await f.must(sweepExpiredLeases, { queue: q }, sara)).toEqual({ expired: 1, stopped: [] });
    expect(await heldRow(c.id)).toBeUndefined();
    expect(await heldRow(a.id)).toBeDefined(); // bilal's lease runs
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });

    // The inbox's tripped breaker lists what it holds back from the set too. (Its read is on the
    // database's clock, where the fixture's 2026-01-01 lease of bilal has long lapsed.)
    await f.database.client`UPDATE queues SET breaker_tripped_at = now(), breaker_reason = 'test' WHERE name = ${q}`;
    const inbox = await readInbox(f.db, null, sara);
    expect(inbox.breakers.find((b) => b.name === q)?.heldBack.map((t) => t.id)).toEqual([a.id]);
  });

  test("presence renewal writes only the lease; a reclaim by someone else writes the held row's owner too", async () => {
    const q = await f.queue("task-held-presence", { leaseSeconds: 30 });
    const task = await f.task("watch the import", { queue: q });
    await f.must(claim, { taskId: task.id, version: task.version }, amal);
    const claimed = await heldRow(task.id);
    const owner = async () => (await f.database.client`SELECT owner_id::text AS o FROM task_held WHERE id = ${task.id}::bigint`)[0]!.o;
    expect(await owner()).toBe(amal.id);

    f.clock.advance(11); // past a third of the lease: due for renewal
    const [renewed] = await f.must(heldLeases, { renew: true }, amal);
    expect(renewed!.task.id).toBe(task.id);
    const after = await heldRow(task.id);
    expect(after!.lease_until.getTime()).toBeGreaterThan(claimed!.lease_until.getTime());
    expect(after!.x).toBe(claimed!.x);
    expect(after!.lease_x).not.toBe(claimed!.lease_x);
    expect(after!.lease_until).toEqual(await stateLease(task.id));

    f.clock.advance(31);
    await f.must(claimNext, { queue: q }, bilal);
    const reclaimed = await heldRow(task.id);
    expect(await owner()).toBe(bilal.id);
    expect(reclaimed!.x).not.toBe(after!.x);
    expect(reclaimed!.lease_until).toEqual(await stateLease(task.id));
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });

  test("an attempt at its ceiling is marked in the set, and its lapse is struck from it", async () => {
    const q = await f.queue("task-held-ceiling", { leaseSeconds: 30 });
    // One strike escalates: the struck task leaves the set for the inbox.
    await f.must(setQueueSettings, { queue: q, maxAttemptSeconds: 60, maxFailures: 1 }, sara);
    const task = await f.task("long job", { queue: q });
    const claimed = await f.must(claim, { taskId: task.id, version: task.version }, amal);
    f.clock.advance(20);
    const beat = await f.must(renew, { taskId: task.id, version: claimed.version }, amal);
    expect(await heldRow(task.id)).toMatchObject({ attempt_limited: false });
    f.clock.advance(20);
    // A lease past the ceiling: the heartbeat is refused and the attempt marked.
    expect(await f.run(renew, { taskId: task.id, version: beat.version }, amal)).toMatchObject({ ok: false, error: { code: "attempt_limit" } });
    expect(await heldRow(task.id)).toMatchObject({ attempt_limited: true });
    f.clock.advance(60);
    expect(await f.must(claimNext, { queue: q }, bilal)).toBeNull();
    expect((await f.database.client`SELECT status FROM task_state WHERE id = ${task.id}::bigint`)[0]).toEqual({ status: "escalated" });
    expect(await heldRow(task.id)).toBeUndefined();
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });

  test("hand-written SQL, on task_state or through the view, keeps the set exact", async () => {
    const [made] = (await f.database.client`
      INSERT INTO tasks (queue, title, status, owner_id, lease_until, lease_seconds, version, attempt)
      VALUES (${queue}, 'seeded as held', 'started', ${amal.id}::uuid, now() + interval '1 minute', 60, 2, 1)
      RETURNING id::text`) as unknown as [{ id: string }];
    expect(await heldRow(made!.id)).toBeDefined();
    await f.database.client`UPDATE tasks SET lease_until = now() - interval '1 hour' WHERE id = ${made!.id}::bigint`;
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
    await f.database.client`UPDATE task_state SET priority = 8 WHERE id = ${made!.id}::bigint`;
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
    await f.database.client`
      UPDATE task_state SET status = 'queued', owner_id = NULL, lease_until = NULL, lease_seconds = NULL WHERE id = ${made!.id}::bigint`;
    expect(await heldRow(made!.id)).toBeUndefined();
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });
});

/**
 * An old deployment's tasks, written before a migration: 200 of the agent old-bot, every fifth
 * queued, then claimed (its lease lapsed an hour ago), started (live; every third of those at
 * the attempt ceiling), done, escalated.
 */
async function oldTasks(database: TestDatabase): Promise<void> {
  await database.client`INSERT INTO actors (id, kind, name) VALUES ('11111111-1111-4111-8111-111111111111', 'agent', 'old-bot')`;
  await database.client`
    INSERT INTO tasks (queue, title, priority, status, owner_id, lease_until, lease_seconds, version, attempt, attempt_limited)
    SELECT 'default', 'Old task ' || n, n % 7, s, CASE WHEN s <> 'queued' THEN '11111111-1111-4111-8111-111111111111'::uuid END,
           CASE s WHEN 'claimed' THEN now() - interval '1 hour' WHEN 'started' THEN now() + interval '1 hour' END,
           CASE WHEN s IN ('claimed', 'started') THEN 120 END,
           CASE s WHEN 'queued' THEN 1 WHEN 'claimed' THEN 2 WHEN 'started' THEN 3 ELSE 4 END,
           CASE WHEN s = 'queued' THEN 0 ELSE 1 END,
           s = 'started' AND n % 3 = 0
    FROM generate_series(1, 200) n,
         LATERAL (SELECT (ARRAY['queued', 'claimed', 'started', 'done', 'escalated'])[1 + n % 5]::task_status AS s) x`;
}

describe("migration 0028 on a database with held, lapsed and finished tasks", () => {
  let database: TestDatabase;
  let held: string[];
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 27 });
    await oldTasks(database);
    held = ((await database.client`SELECT id::text FROM task_state WHERE status IN ('claimed', 'started') ORDER BY id`) as unknown as { id: string }[]).map((r) => r.id);
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("the set holds exactly the held tasks, with their leases, and the three indexes left task_state", async () => {
    const rows = (await database.client`SELECT id::text FROM task_held ORDER BY id`) as unknown as { id: string }[];
    expect(held).toHaveLength(80);
    expect(rows.map((r) => r.id)).toEqual(held);
    expect(await heldSetDrift(database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
    const indexes = (await database.client`SELECT indexname FROM pg_indexes WHERE tablename = 'task_state'`) as unknown as { indexname: string }[];
    const names = indexes.map((i) => i.indexname);
    expect(names).toContain("tasks_status_order");
    expect(names.filter((n) => ["tasks_held_order", "tasks_held_lease", "tasks_attempt_limited"].includes(n))).toEqual([]);
  });

  test("the inbox lists the old lapsed leases, and a claim reclaims one", async () => {
    const lapsed = await readLapsed(database.db);
    expect(lapsed.count).toBe(40);
    expect(lapsed.tasks[0]).toMatchObject({ status: "claimed", owner: { name: "old-bot" } });
    const worker = await createActor(database.db, "agent", "new-bot");
    // The queue has lapsed leases, so the claim takes the long way: lapsed walk included.
    const claimed = await perform(claimNext, { queue: "default" }, { db: database.db, actor: worker });
    if (!claimed.ok || !claimed.value) throw new Error(`no claim: ${JSON.stringify(claimed)}`);
    expect(claimed.value.owner?.id).toBe(worker.id);
    expect(await heldSetDrift(database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });
});

describe("migration 0034 on a database with held, lapsed and finished tasks", () => {
  let database: TestDatabase;
  let held: { id: string; lease_until: string; attempt_limited: boolean }[];
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 33 });
    await oldTasks(database);
    held = (await database.client`
      SELECT id::text, to_json(lease_until)#>>'{}' AS lease_until, attempt_limited FROM task_state
      WHERE status IN ('claimed', 'started') ORDER BY id`) as unknown as typeof held;
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("every held task's lease moved to task_lease, and the lease left task_held with its two indexes", async () => {
    const leases = await database.client`
      SELECT id::text, to_json(lease_until)#>>'{}' AS lease_until, attempt_limited FROM task_lease ORDER BY id`;
    expect(held).toHaveLength(80);
    expect(held.filter((h) => h.attempt_limited).length).toBeGreaterThan(0);
    expect(leases).toEqual(held);
    expect(await heldSetDrift(database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
    const columns = await database.client`SELECT column_name FROM information_schema.columns WHERE table_name = 'task_held' ORDER BY column_name`;
    expect(columns.map((c) => c.column_name)).toEqual(["created_at", "id", "owner_id", "priority", "queue"]);
    const indexes = await database.client`SELECT tablename, indexname FROM pg_indexes WHERE tablename IN ('task_held', 'task_lease') ORDER BY 1, 2`;
    expect(indexes.map((i) => `${i.tablename}.${i.indexname}`)).toEqual([
      "task_held.task_held_order", "task_held.task_held_owner", "task_held.task_held_pkey",
      "task_lease.task_lease_attempt_limited", "task_lease.task_lease_pkey", "task_lease.task_lease_until",
    ]);
  });

  test("the old lapsed leases are listed, reclaimed and swept from task_lease", async () => {
    expect((await readLapsed(database.db)).count).toBe(40);
    const worker = await createActor(database.db, "agent", "new-bot");
    const claimed = await perform(claimNext, { queue: "default" }, { db: database.db, actor: worker });
    if (!claimed.ok || !claimed.value) throw new Error(`no claim: ${JSON.stringify(claimed)}`);
    expect(claimed.value).toMatchObject({ status: "claimed", owner: { id: worker.id } });
    expect((await readLapsed(database.db)).count).toBe(39);
    const sara = await createActor(database.db, "user", "Sara");
    const swept = await perform(sweepExpiredLeases, { queue: "default" }, { db: database.db, actor: sara });
    if (!swept.ok) throw new Error(`no sweep: ${JSON.stringify(swept)}`);
    // However many the queue's expiry budget let it take (its breaker may stop it), each left the lapsed list.
    expect(swept.value.expired).toBeGreaterThan(0);
    expect((await readLapsed(database.db)).count).toBe(39 - swept.value.expired);
    expect(await heldSetDrift(database.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  });
});
