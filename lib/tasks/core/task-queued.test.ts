import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { drizzle } from "drizzle-orm/postgres-js";
import * as schema from "@/db/schema";
import {
  cancel, claim, claimBatch, claimNext, complete, editTask, failTask, perform, release, renew, requeue, setQueueSettings, start, type ActorRef,
} from "@/lib/tasks";
import { createActor } from "@/lib/tasks/core/actors";
import { migrateDatabase } from "@/db/migrate";
import { engineFixture, seedQueued, withStanding, type EngineFixture } from "@/test/engine";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { heldSetDrift, queuedSetDrift } from "@/test/inspect";
import { planReporter } from "@/test/plans";

// The claimable set (task_queued, migration 0029, docs/data-model.md#the-sets): a row for each
// queued task that waits on no dependency, written by triggers on task_state, walked by the
// claim (ready tasks in claim order; scheduled ones in not_before order).

const editAnyTask = withStanding(editTask, "supervisor");

let f: EngineFixture;
let amal: ActorRef;
let sara: ActorRef;
const queue = "task-queued";

beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  sara = await f.actor("Sara");
  await f.queue(queue);
  // A failure backs off: a requeued task carries a not_before.
  await f.must(setQueueSettings, { queue, retryDelaySeconds: 30 }, sara);
});
afterAll(async () => {
  await f?.close();
});

type QueuedRow = { id: string; priority: number; not_before: Date | null };
/** The task's row in the claimable set, its not_before as a Date (the test client returns timestamps as text). */
const queuedRow = async (id: string): Promise<QueuedRow | undefined> => {
  const [row] = (await f.database.client`
    SELECT id::text, priority, to_json(not_before)#>>'{}' AS not_before FROM task_queued WHERE id = ${id}::bigint`) as unknown as
    (Omit<QueuedRow, "not_before"> & { not_before: string | null })[];
  return row && { ...row, not_before: row.not_before === null ? null : new Date(row.not_before) };
};
const noDrift = { missing: 0, extra: 0, stale: 0 };

describe("task_queued follows task_state", () => {
  test("a task is in the set while queued with nothing to wait for: created, edited, claimed, failed back with its backoff, released, cancelled", async () => {
    const task = await f.task("Send invoices", { queue, priority: 2 });
    expect(await queuedRow(task.id)).toMatchObject({ id: task.id, priority: 2, not_before: null });

    const edited = await f.must(editAnyTask, { taskId: task.id, version: task.version, priority: 7 }, sara);
    expect(await queuedRow(task.id)).toMatchObject({ priority: 7 });

    const claimed = await f.must(claim, { taskId: task.id, version: edited.version }, amal);
    expect(await queuedRow(task.id)).toBeUndefined();
    const failed = await f.must(failTask, { taskId: task.id, version: claimed.version, reason: "SMTP down" }, amal);
    expect(failed.status).toBe("queued");
    // Back in the set, with the backoff its failure earned as its not_before.
    expect(failed.notBefore).not.toBeNull();
    expect((await queuedRow(task.id))!.not_before).toEqual(failed.notBefore);

    f.clock.advance(24 * 3600); // past any backoff
    const again = await f.must(claim, { taskId: task.id, version: failed.version }, amal);
    expect(await queuedRow(task.id)).toBeUndefined();
    const released = await f.must(release, { taskId: task.id, version: again.version }, amal);
    expect(await queuedRow(task.id)).toMatchObject({ not_before: null });
    await f.must(cancel, { taskId: task.id, version: released.version, reason: "sent by hand" }, sara);
    expect(await queuedRow(task.id)).toBeUndefined();
    expect(await queuedSetDrift(f.db)).toEqual(noDrift);
  });

  test("a task that waits on another enters the set when the other completes, and a scheduled one carries its not_before", async () => {
    const parent = await f.task("Close the month", { queue });
    const child = await f.task("Publish the report", { queue, dependsOn: [parent.id] });
    const later = new Date(f.clock.time.getTime() + 3_600_000);
    const scheduled = await f.task("Remind the team", { queue, notBefore: later.toISOString() });
    expect(await queuedRow(child.id)).toBeUndefined();
    expect((await queuedRow(scheduled.id))!.not_before).toEqual(later);

    const claimed = await f.must(claim, { taskId: parent.id, version: parent.version }, amal);
    const started = await f.must(start, { taskId: parent.id, version: claimed.version }, amal);
    await f.must(complete, { taskId: parent.id, version: started.version }, amal);
    expect(await queuedRow(child.id)).toBeDefined();
    expect(await queuedSetDrift(f.db)).toEqual(noDrift);
  });

  test("an escalated task leaves the set, and a supervisor's requeue brings it back", async () => {
    const q = await f.queue("task-queued-escalate");
    await f.must(setQueueSettings, { queue: q, maxFailures: 1 }, sara);
    const task = await f.task("Renew the certificate", { queue: q });
    const claimed = await f.must(claim, { taskId: task.id, version: task.version }, amal);
    const escalated = await f.must(failTask, { taskId: task.id, version: claimed.version, reason: "no DNS access" }, amal);
    expect(escalated.status).toBe("escalated");
    expect(await queuedRow(task.id)).toBeUndefined();
    await f.must(requeue, { taskId: task.id, version: escalated.version }, sara);
    expect(await queuedRow(task.id)).toBeDefined();
    expect(await queuedSetDrift(f.db)).toEqual(noDrift);
  });

  test("hand-written SQL, a bulk insert through the view included, keeps the set exact", async () => {
    await f.database.client`INSERT INTO tasks (queue, title, priority) SELECT ${queue}, 'bulk ' || i, i % 5 FROM generate_series(1, 50) i`;
    await f.database.client`UPDATE tasks SET priority = 9 WHERE queue = ${queue} AND title = 'bulk 7'`;
    await f.database.client`UPDATE task_state SET not_before = now() + interval '1 day' WHERE queue = ${queue} AND priority = 4`;
    expect(await queuedSetDrift(f.db)).toEqual(noDrift);
  });
});

describe("the claim walks the set", () => {
  let client: postgres.Sql;
  let plans: string[];
  const q = "task-queued-plan";
  beforeAll(async () => {
    await seedQueued(f, q, 20_000, 10);
    // 20,000 rows in one INSERT into task_state (as bench/ seeds write): the set took them all, once a statement.
    expect(await queuedSetDrift(f.db)).toEqual(noDrift);
    ({ client, plans } = await planReporter(f.database.url, { nested: true }));
  }, 60_000);
  afterAll(async () => {
    await client?.end();
  });

  test.each(["auto", "force_generic_plan"])("claim-next and claim-batch walk task_queued_order in claim order, 20,000 queued (plan_cache_mode %s)", async (mode) => {
    await client.unsafe(`SET plan_cache_mode = ${mode}`);
    const db = drizzle(client, { schema });
    for (const run of [() => perform(claimNext, { queue: q }, { db, actor: amal, clock: f.clock }),
      () => perform(claimBatch, { queue: q, limit: 10 }, { db, actor: amal, clock: f.clock })]) {
      plans.length = 0;
      const claimed = await run();
      expect(claimed.ok).toBe(true);
      const walks = plans.filter((p) => p.includes("FROM task_queued ready"));
      expect(walks).toHaveLength(1);
      expect(walks[0]).toContain("Index Scan using task_queued_order on task_queued ready");
      expect(walks[0]).not.toMatch(/Seq Scan on task_(state|queued)|Sort Key: ready\.(priority|not_before)/);
    }
    // The best of the queue: the highest priority, then the oldest.
    const [best] = await f.database.client`
      SELECT id::text FROM task_state WHERE queue = ${q} AND status = 'queued' ORDER BY priority DESC, created_at, id LIMIT 1`;
    const next = await perform(claimNext, { queue: q }, { db: f.db, actor: amal, clock: f.clock });
    expect(next.ok && next.value?.id).toBe(best!.id);
  });
});

describe("the loop's own statements write their set rows (migration 0030)", () => {
  let g: EngineFixture;
  beforeAll(async () => {
    g = await engineFixture();
    // In this database the set triggers refuse to run: whatever still works wrote its set rows itself.
    for (const fn of ["task_held_follows", "task_queued_follows"]) {
      await g.database.client.unsafe(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the set trigger ${fn} ran'; END $$`);
    }
  });
  afterAll(async () => {
    await g?.close();
  });

  test("claim-next, claim-batch, the targeted claim, a lapsed lease's reclaim and the completion call no set trigger, and the sets stay exact", async () => {
    const agent = await g.actor("loop", "agent");
    const q = await g.queue("own-sets", { leaseSeconds: 30 });
    const tasks = [];
    for (let i = 0; i < 5; i++) tasks.push(await g.task(`loop ${i}`, { queue: q, priority: i }));
    const first = (await g.must(claimNext, { queue: q, start: true }, agent))!;
    const done = await g.must(complete, { taskId: first.id, version: first.version }, agent);
    expect(done.status).toBe("done");
    const batch = await g.must(claimBatch, { queue: q, limit: 2 }, agent);
    expect(batch).toHaveLength(2);
    const targeted = await g.must(claim, { taskId: tasks[0]!.id, version: tasks[0]!.version }, agent);
    expect(targeted.status).toBe("claimed");
    g.clock.advance(31);
    const reclaimed = (await g.must(claimNext, { queue: q, start: true }, agent))!;
    expect(reclaimed.id).toBe(batch[0]!.id); // the best lapsed lease, over the last queued task
    expect(await queuedSetDrift(g.db)).toEqual(noDrift);
    expect(await heldSetDrift(g.db)).toEqual(noDrift);
    // The instrument works: a heartbeat moves the lease through the trigger, which refuses here.
    g.clock.advance(5);
    await expect(g.run(renew, { taskId: reclaimed.id, version: reclaimed.version }, agent)).rejects.toThrow(/the set trigger task_held_follows ran/);
  });
});

describe("migration 0029 on a database with queued, blocked, scheduled, held and finished tasks", () => {
  let database: TestDatabase;
  let expected: { id: string; not_before: string | null }[];
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 28 });
    await database.client`INSERT INTO actors (id, kind, name) VALUES ('11111111-1111-4111-8111-111111111111', 'agent', 'old-bot')`;
    // Every sixth task: queued, queued and scheduled, queued and blocked (on task 1), claimed, done, escalated.
    await database.client`
      INSERT INTO tasks (queue, title, priority, status, owner_id, lease_until, lease_seconds, version, attempt, not_before, depends_on, blocked_by)
      SELECT 'default', 'Old task ' || n, n % 7, s, CASE WHEN s NOT IN ('queued') THEN '11111111-1111-4111-8111-111111111111'::uuid END,
             CASE WHEN s = 'claimed' THEN now() + interval '1 hour' END, CASE WHEN s = 'claimed' THEN 120 END,
             CASE WHEN s = 'queued' THEN 1 ELSE 3 END, CASE WHEN s = 'queued' THEN 0 ELSE 1 END,
             CASE WHEN n % 6 = 1 THEN now() + interval '1 day' END,
             CASE WHEN n % 6 = 2 THEN '{1}'::bigint[] ELSE '{}' END, CASE WHEN n % 6 = 2 THEN '{1}'::bigint[] ELSE '{}' END
      FROM generate_series(1, 180) n,
           LATERAL (SELECT (ARRAY['queued', 'queued', 'queued', 'claimed', 'done', 'escalated'])[1 + n % 6]::task_status AS s) x`;
    expected = (await database.client`
      SELECT id::text, to_json(not_before)#>>'{}' AS not_before FROM task_state
      WHERE status = 'queued' AND blocked_by = '{}' ORDER BY id`) as unknown as { id: string; not_before: string | null }[];
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("the set holds exactly the queued tasks that wait on nothing, scheduled ones with their not_before; the two indexes left task_state", async () => {
    expect(expected).toHaveLength(60);
    expect(expected.filter((r) => r.not_before !== null)).toHaveLength(30);
    const rows = await database.client`SELECT id::text, to_json(not_before)#>>'{}' AS not_before FROM task_queued ORDER BY id`;
    expect(rows).toEqual(expected);
    expect(await queuedSetDrift(database.db)).toEqual(noDrift);
    const indexes = (await database.client`SELECT indexname FROM pg_indexes WHERE tablename = 'task_state'`) as unknown as { indexname: string }[];
    expect(indexes.map((i) => i.indexname).filter((n) => ["tasks_queued_order", "tasks_scheduled"].includes(n))).toEqual([]);
  });

  test("the engine claims an old ready task, never a blocked or a scheduled one", async () => {
    const worker = await createActor(database.db, "agent", "new-bot");
    const ready = new Set(expected.filter((r) => r.not_before === null).map((r) => r.id));
    const claimed = await perform(claimBatch, { queue: "default", limit: 100 }, { db: database.db, actor: worker });
    if (!claimed.ok) throw new Error(JSON.stringify(claimed));
    expect(claimed.value.map((t) => t.id).sort()).toEqual([...ready].sort());
    expect(await queuedSetDrift(database.db)).toEqual(noDrift);
  });
});
