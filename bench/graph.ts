import { TransactionRollbackError } from "drizzle-orm";
import postgres from "postgres";
import { connectDatabase } from "@/db/client";
import { complete } from "@/lib/tasks/holding/complete";
import { claimNext } from "@/lib/tasks/claiming/claim-next";
import { databaseClock } from "@/lib/tasks/core/clock";
import { BENCH_AGENT, insertTasks } from "./lib/seed";
import { percentile } from "./lib/stats";

// The work graph's bench rows (docs/performance.md): claim-next over a table where 30 % of
// the tasks are blocked and 10 % not yet due, and the fan-out of completing a task that
// 1,000 queued tasks wait for.

/**
 * A table of `tasks` in queue "default": 30 % queued and blocked (by a started task), 10 %
 * queued with notBefore an hour or more ahead — priority 10, so they rank above every ready
 * task — 1 % scheduled and already due, 5 % queued and ready, 2.5 % held with lapsed leases,
 * 20 live leases, the rest done; created over 30 days.
 */
export async function seedGraph(url: string, tasks: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`INSERT INTO actors (id, kind, name) VALUES ('${BENCH_AGENT.id}', 'agent', '${BENCH_AGENT.name}') ON CONFLICT DO NOTHING`);
    await sql.unsafe(`INSERT INTO queues (name) VALUES ('default') ON CONFLICT DO NOTHING`);
    await sql.unsafe(`SELECT task_events_ensure_partitions(now() - interval '31 days')`); // the months it writes into (migration 0012)
    await sql.unsafe(`SELECT setseed(0.42)`);
    // k = i % 200 picks the kind: 0..59 blocked, 60..79 not yet due, 80..81 due, 82..91 ready,
    // 92..96 lapsed, the rest done (i ≤ 20: live leases). Every blocked task waits for task 1.
    await sql.unsafe(insertTasks(`INSERT INTO task_state (queue, priority, status, owner_id, lease_until, lease_seconds, version,
                      depends_on, blocked_by, not_before, created_at, updated_at)
      SELECT 'default', CASE WHEN k BETWEEN 60 AND 79 THEN 10 ELSE p END, s,
             CASE WHEN s IN ('claimed', 'started', 'done') THEN '${BENCH_AGENT.id}'::uuid END,
             CASE WHEN s IN ('claimed', 'started') THEN CASE WHEN i <= 20 THEN now() + interval '10 minutes'
                  ELSE now() - (1 + random() * 7200) * interval '1 second' END END,
             CASE WHEN s IN ('claimed', 'started') THEN 120 END,
             CASE s WHEN 'queued' THEN 1 WHEN 'claimed' THEN 2 WHEN 'started' THEN 3 ELSE 4 END,
             CASE WHEN k < 60 AND i > 20 THEN '{1}'::bigint[] ELSE '{}' END,
             CASE WHEN k < 60 AND i > 20 THEN '{1}'::bigint[] ELSE '{}' END,
             CASE WHEN i <= 20 THEN NULL WHEN k BETWEEN 60 AND 79 THEN now() + interval '1 hour' + random() * interval '1 day'
                  WHEN k BETWEEN 80 AND 81 THEN now() - random() * interval '1 hour' END,
             c, c
      FROM (SELECT i, k, (floor(random() * 11) - 5)::int AS p,
                   (CASE WHEN i <= 20 THEN 'started' WHEN k < 92 THEN 'queued' WHEN k < 97 THEN 'started' ELSE 'done' END)::task_status AS s,
                   now() - interval '30 days' * (1 - i / ${tasks}.0) - random() * interval '1 hour' AS c
            FROM (SELECT i, i % 200 AS k FROM generate_series(1, ${tasks}) i) n) g`));
    await sql.unsafe(`INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
      SELECT id, queue, 'created', '${BENCH_AGENT.id}', '{"version":1}', created_at FROM task_state ORDER BY id`);
    await sql.unsafe(`VACUUM ANALYZE task_state, task_content, task_held, task_lease, task_queued, task_events`);
  } finally {
    await sql.end();
  }
}

/** A rolled-back transaction's wall time: every rep sees the same table. */
async function rolledBack(db: ReturnType<typeof connectDatabase>["db"], body: Parameters<typeof db.transaction>[0]): Promise<number> {
  const t0 = performance.now();
  await db.transaction(async (tx) => {
    await body(tx);
    tx.rollback();
  }).catch((e: unknown) => {
    if (!(e instanceof TransactionRollbackError)) throw e;
  });
  return performance.now() - t0;
}

/**
 * Queue "fanout": a started task that `dependents` queued tasks wait for, and a started task
 * nobody waits for (the plain completion), among a few thousand done tasks.
 */
export async function seedFanout(url: string, dependents: number): Promise<{ parent: string; plain: string }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`INSERT INTO actors (id, kind, name) VALUES ('${BENCH_AGENT.id}', 'agent', '${BENCH_AGENT.name}') ON CONFLICT DO NOTHING`);
    await sql.unsafe(`INSERT INTO queues (name) VALUES ('fanout') ON CONFLICT DO NOTHING`);
    await sql.unsafe(insertTasks(`INSERT INTO task_state (queue, status, owner_id, version, created_at, updated_at)
      SELECT 'fanout', 'done', '${BENCH_AGENT.id}', 4, now(), now() FROM generate_series(1, 5000) i`, `'old ' || made.id`));
    const started = await sql.unsafe(`INSERT INTO tasks (queue, title, status, owner_id, lease_until, lease_seconds, version)
      VALUES ('fanout', 'parent', 'started', '${BENCH_AGENT.id}', now() + interval '1 hour', 120, 3),
             ('fanout', 'plain', 'started', '${BENCH_AGENT.id}', now() + interval '1 hour', 120, 3) RETURNING id::text`);
    const [parent, plain] = started.map((r) => r.id as string) as [string, string];
    await sql.unsafe(insertTasks(`INSERT INTO task_state (queue, depends_on, blocked_by)
      SELECT 'fanout', ARRAY[${parent}]::bigint[], ARRAY[${parent}]::bigint[] FROM generate_series(1, ${dependents}) i`, `'waits ' || made.id`));
    await sql.unsafe(`VACUUM ANALYZE task_state, task_content, task_held, task_lease, task_queued`);
    return { parent, plain };
  } finally {
    await sql.end();
  }
}

/**
 * p50 (ms) of `reps` rolled-back transactions that complete `taskId` and then claim the next
 * task of its queue: with `taskId` the parent, the whole fan-out (every dependent unblocked,
 * an unblocked event each) and the claim of one of them.
 */
export async function completeAndClaimP50(url: string, taskId: string, reps: number): Promise<number> {
  const { db, client } = connectDatabase(url, { max: 1, applicationName: "bench-unblock" });
  try {
    const times: number[] = [];
    const ctx = { actor: BENCH_AGENT, clock: databaseClock };
    for (let i = 0; i < reps; i++) {
      times.push(await rolledBack(db, async (tx) => {
        const done = await complete.run(tx, { taskId, version: 3 }, ctx);
        if (!done.ok) throw new Error(`complete failed: ${JSON.stringify(done.error)}`);
        const next = await claimNext.run(tx, { queue: "fanout" }, ctx);
        if (!next.ok) throw new Error(`claimNext failed: ${JSON.stringify(next.error)}`);
      }));
    }
    return percentile(times, 50);
  } finally {
    await client.end();
  }
}
