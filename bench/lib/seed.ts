import postgres from "postgres";

export const BENCH_AGENT = { id: "11111111-1111-4111-8111-111111111111", name: "bench-agent", kind: "agent" as const };

/**
 * Tasks in bulk (migration 0027): `state`, an INSERT INTO task_state … SELECT, and each new
 * row's words beside it, its title `title` (an expression of the new row, `made`). Through the
 * view `tasks` its trigger writes a row at a time, ~70 µs each: 70 s for a million.
 */
export const insertTasks = (state: string, title = `'task ' || made.id`) =>
  `WITH made AS (${state} RETURNING id) INSERT INTO task_content (id, title) SELECT made.id, ${title} FROM made`;

/** Queued tasks in one INSERT … SELECT generate_series: seeding is not what is measured. */
export async function seedQueued(url: string, count: number, queue = "default"): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`INSERT INTO queues (name) VALUES ($1) ON CONFLICT DO NOTHING`, [queue]);
    await sql.unsafe(insertTasks(`INSERT INTO task_state (queue) SELECT $1 FROM generate_series(1, $2::int) i`, `'bench ' || made.id`), [queue, count]);
    await sql.unsafe(`VACUUM ANALYZE task_state, task_content, task_held, task_lease, task_queued`);
  } finally {
    await sql.end();
  }
}

/** Bytes of the event log (table, indexes, TOAST). */
export async function eventLogBytes(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Partitioned (migration 0012): the parent holds no bytes of its own; its partitions do.
    const [row] = await sql.unsafe(`SELECT coalesce(sum(pg_total_relation_size(relid)), 0)::bigint AS n FROM pg_partition_tree('task_events')`);
    return Number(row!.n);
  } finally {
    await sql.end();
  }
}

/**
 * bench/explain-claim.ts's table at any size: 5% queued, 2.5% held with lapsed leases (up
 * to 2 h ago), 20 live leases, the rest done; created over 30 days; one `created` event per
 * task and a `lease_expired` for 1 in 20 (50 inside the breaker window, below its threshold).
 */
/**
 * seedMixed's table with 20 % of the tasks reserving one of 100 resources exclusively
 * (issue 24's claim-p50-reserved row): some of the held tasks hold one, so claim-next takes
 * the reservations lock and steps over the queued tasks that conflict with them.
 */
export async function seedReserved(url: string, tasks: number): Promise<void> {
  await seedMixed(url, tasks);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`UPDATE task_state SET reserves = jsonb_build_array(jsonb_build_object('resource', 'repo/f' || (id % 100), 'mode', 'exclusive'))
                      WHERE id % 5 = 0`);
    await sql.unsafe(`VACUUM ANALYZE task_state, task_held, task_lease, task_queued`);
  } finally {
    await sql.end();
  }
}

export async function seedMixed(url: string, tasks: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`INSERT INTO actors (id, kind, name) VALUES ('${BENCH_AGENT.id}', 'agent', '${BENCH_AGENT.name}') ON CONFLICT DO NOTHING`);
    // The months the seed writes into, as a deployment that ran through them has (bench/lib/pg.ts's template has only these two).
    await sql.unsafe(`SELECT task_events_ensure_partitions(now() - interval '31 days')`);
    await sql.unsafe(`SELECT setseed(0.42)`);
    await sql.unsafe(insertTasks(`INSERT INTO task_state (queue, priority, status, owner_id, lease_until, lease_seconds, version,
                      side_effect_recorded, created_at, updated_at)
   SELECT 'default', p, s, CASE WHEN s <> 'queued' THEN '${BENCH_AGENT.id}'::uuid END,
          CASE WHEN s IN ('claimed', 'started') THEN CASE WHEN i <= 20 THEN now() + interval '10 minutes'
               ELSE now() - (1 + random() * 7200) * interval '1 second' END END,
          CASE WHEN s IN ('claimed', 'started') THEN 120 END,
          CASE s WHEN 'queued' THEN 1 WHEN 'claimed' THEN 2 WHEN 'started' THEN 3 ELSE 4 END,
          s IN ('claimed', 'started') AND random() < 0.3, c, c
   FROM (SELECT i, (floor(random() * 11) - 5)::int AS p,
                (CASE WHEN i <= 20 THEN 'started' WHEN i % 40 < 2 THEN 'queued'
                      WHEN i % 40 = 2 THEN CASE WHEN i % 80 = 2 THEN 'claimed' ELSE 'started' END
                      ELSE 'done' END)::task_status AS s,
                now() - interval '30 days' * (1 - i / ${tasks}.0) - random() * interval '1 hour' AS c
         FROM generate_series(1, ${tasks}) i) g`));
    await sql.unsafe(`INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
   SELECT id, queue, 'created', '${BENCH_AGENT.id}', '{"version":1}', created_at FROM task_state ORDER BY id`);
    await sql.unsafe(`INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
   SELECT id, queue, 'lease_expired', '00000000-0000-0000-0000-000000000000', '{}',
          CASE WHEN id > (SELECT max(id) FROM task_state) - 1000 THEN now() - random() * interval '4 minutes'
               ELSE created_at + interval '3 minutes' END
   FROM task_state WHERE id % 20 = 7 ORDER BY id`);
    await sql.unsafe(`VACUUM ANALYZE task_state, task_content, task_held, task_lease, task_queued, task_events`);
  } finally {
    await sql.end();
  }
}
