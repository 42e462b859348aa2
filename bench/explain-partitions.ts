/**
 * What partitioning task_events by month (migration 0012) costs the hot paths, in one run on
 * one server: the same 300,000 events over 12 months in a database as 0011 left it (one
 * table) and in one at 0012 (13 month partitions and DEFAULT); each timed statement runs on
 * both, alternately, and the ratio is partitioned / unpartitioned (docs/engine.md).
 *   npx tsx bench/explain-partitions.ts   # DATABASE_URL: a superuser URL; default the local PostgreSQL
 * Creates two scratch databases, drops them at the end (~1 min).
 */
import { rm } from "node:fs/promises";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { migrateDatabase, migrationsFolderUpTo } from "../db/migrate";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TASKS = 50_000;
const EVENTS_PER_TASK = 6;
const OPS = 2_000;
const RUNS = 5;
const SYSTEM = "00000000-0000-0000-0000-000000000000";

const LOAD = [
  `INSERT INTO tasks (queue, title, status, created_at, updated_at)
   SELECT 'default', 'task ' || g, 'done', now() - interval '365 days' * (1 - g / ${TASKS}.0), now() FROM generate_series(1, ${TASKS}) g`,
  `INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
   SELECT t.id, 'default', 'heartbeat', '${SYSTEM}', '{}', t.created_at + k * interval '1 minute'
   FROM tasks t CROSS JOIN generate_series(1, ${EVENTS_PER_TASK}) k ORDER BY t.id, k`,
  `VACUUM ANALYZE`,
];

// The statements, as lib/ sends them: appendEvents' insert (one event, with its NOTIFY), a
// task's history (taskHistory, the task page) and a page of the realtime feed after a cursor.
const INSERT = `WITH inserted AS (INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
  VALUES ($1::bigint, 'default', 'heartbeat', '${SYSTEM}', '{}'::jsonb, now()) RETURNING id)
  SELECT pg_notify('bench', min(id)::text) FROM inserted`;
const HISTORY = `SELECT * FROM task_events WHERE task_id = $1::bigint ORDER BY id`;
const FEED = `SELECT id, tx_id FROM task_events WHERE (tx_id, id) > ($1::text::xid8, $2::bigint) ORDER BY tx_id, id LIMIT 100`;

type Sql = postgres.Sql;

async function timeOps(sql: Sql, statement: string, params: (i: number) => (string | number)[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < OPS; i++) await sql.unsafe(statement, params(i), { prepare: true });
  return (performance.now() - t0) / OPS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const urlOf = (name: string) => Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  // Per run (pid): two runs on one server must not drop each other's databases.
  const names = { flat: `claimboard_bench_events_flat_${process.pid}`, partitioned: `claimboard_bench_events_partitioned_${process.pid}` };
  const clients: Record<string, Sql> = {};
  try {
    for (const name of Object.values(names)) {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.unsafe(`CREATE DATABASE ${name}`);
    }
    const folder = await migrationsFolderUpTo(11);
    const flat = postgres(urlOf(names.flat), { max: 1, onnotice: () => {} });
    await migrate(drizzle(flat), { migrationsFolder: folder });
    await rm(folder, { recursive: true });
    await migrateDatabase(urlOf(names.partitioned));
    const partitioned = postgres(urlOf(names.partitioned), { max: 1, onnotice: () => {} });
    await partitioned.unsafe(`SELECT task_events_ensure_partitions(now() - interval '365 days')`);
    Object.assign(clients, { flat, partitioned });
    for (const sql of [flat, partitioned]) for (const statement of LOAD) await sql.unsafe(statement);
    const [{ n }] = (await partitioned.unsafe(`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'task_events'::regclass`)) as unknown as [{ n: number }];
    console.log(`${TASKS * EVENTS_PER_TASK} events over 12 months; ${n} partitions (DEFAULT included); ${(await admin`SELECT version()`)[0]!.version}`);

    const [cursor] = (await flat.unsafe(`SELECT tx_id::text AS tx, id::text FROM task_events ORDER BY tx_id DESC, id DESC OFFSET 1000 LIMIT 1`)) as unknown as [{ tx: string; id: string }];
    const [pcursor] = (await partitioned.unsafe(`SELECT tx_id::text AS tx, id::text FROM task_events ORDER BY tx_id DESC, id DESC OFFSET 1000 LIMIT 1`)) as unknown as [{ tx: string; id: string }];
    const task = (i: number) => [1 + ((i * 7919) % TASKS)];
    const cases: [string, string, (db: "flat" | "partitioned") => (i: number) => (string | number)[]][] = [
      ["event insert (appendEvents, one event)", INSERT, () => task],
      ["task history (taskHistory)", HISTORY, () => task],
      ["feed page after a cursor (100 rows)", FEED, (db) => () => (db === "flat" ? [cursor.tx, cursor.id] : [pcursor.tx, pcursor.id])],
    ];
    console.log(`\nmedian of ${RUNS} runs × ${OPS} statements, ms per statement (prepared), ratio partitioned / one table:`);
    for (const [label, statement, params] of cases) {
      const times = { flat: [] as number[], partitioned: [] as number[] };
      for (let r = 0; r < RUNS; r++) {
        times.flat.push(await timeOps(flat, statement, params("flat")));
        times.partitioned.push(await timeOps(partitioned, statement, params("partitioned")));
      }
      const [a, b] = [median(times.flat), median(times.partitioned)];
      console.log(`  ${label.padEnd(42)} one table ${a.toFixed(3)}  partitioned ${b.toFixed(3)}  ratio ${(b / a).toFixed(2)}`);
    }
    console.log("\n--- EXPLAIN (ANALYZE) task history, partitioned:");
    for (const row of await partitioned.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${HISTORY.replace("$1::bigint", "4242")}`)) console.log(row["QUERY PLAN"]);
  } finally {
    for (const sql of Object.values(clients)) await sql.end();
    for (const name of Object.values(names)) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
