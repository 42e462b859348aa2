/**
 * The insights and metrics reads on a log of 1,000,000 events (docs/insights.md): the plans
 * of the very statements /insights and /api/v1/metrics run (captured with auto_explain from
 * the code in lib/, not copied), and their median time per window.
 *   npx tsx bench/explain-insights.ts   # DATABASE_URL: a superuser URL; default the local PostgreSQL
 * Creates its own scratch database, applies the migrations, drops it at the end (~1–2 min).
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migrateDatabase } from "../db/migrate";
import * as schema from "../db/schema";
import { readInsights } from "../lib/insights/insights";
import type { WindowName } from "../lib/insights/window";
import { readGauges } from "../lib/metrics/gauges";
import { enableAutoExplain } from "./lib/auto-explain";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SCRATCH = "claimboard_explain_insights";
const TASKS = 100_000;
const EVENTS_PER_TASK = 10;
const QUEUES = 4;
const RUNS = 5;
const AGENT = "11111111-1111-4111-8111-111111111111";

// 100,000 done tasks over 30 days in 4 queues, each with 10 events (created, claimed,
// started, six heartbeats, completed) 5–50 s apart, every event in a transaction of its
// own (explicit tx ids); 1 task in 40 lost its first lease (a lease_expired + claimed
// instead of a heartbeat). 1,000,000 events, ending now.
const LOAD = [
  // A partition per month written into, as a deployment that ran through them has (migration 0012).
  `SELECT task_events_ensure_partitions(now() - interval '31 days')`,
  `INSERT INTO actors (id, kind, name) VALUES ('${AGENT}', 'agent', 'bench-agent')`,
  `INSERT INTO queues (name) SELECT 'q' || g FROM generate_series(0, ${QUEUES - 1}) g`,
  `INSERT INTO tasks (queue, title, status, version, created_at, updated_at)
   SELECT 'q' || (g % ${QUEUES}), 'task ' || g, 'done', 9,
          now() - interval '30 days' + g * (interval '30 days' / ${TASKS}) - interval '10 minutes',
          now() - interval '30 days' + g * (interval '30 days' / ${TASKS})
   FROM generate_series(1, ${TASKS}) g`,
  `INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at, tx_id)
   SELECT t.id, t.queue,
          (CASE WHEN k = 1 THEN 'created' WHEN k = 2 THEN 'claimed' WHEN k = 3 THEN 'started'
                WHEN k = 10 THEN 'completed'
                WHEN k = 5 AND t.id % 40 = 0 THEN 'lease_expired' WHEN k = 6 AND t.id % 40 = 0 THEN 'claimed'
                ELSE 'heartbeat' END)::event_type,
          '${AGENT}', '{}', t.created_at + k * interval '5 seconds' + (t.id % 10) * k * interval '4 seconds',
          (t.id * ${EVENTS_PER_TASK} + k)::text::xid8
   FROM tasks t CROSS JOIN generate_series(1, ${EVENTS_PER_TASK}) k
   ORDER BY t.id, k`,
  `ANALYZE`,
];

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function median(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

/** Runs `fn` once with auto_explain on, and prints every plan it produced. */
async function plans(url: string, label: string, fn: (db: ReturnType<typeof drizzle<typeof schema>>) => Promise<unknown>): Promise<void> {
  const notices: string[] = [];
  const client = postgres(url, { max: 1, onnotice: (n) => notices.push(String(n.message)), connection: { TimeZone: "UTC" } });
  await enableAutoExplain(client);
  await fn(drizzle(client, { schema }));
  await client.end();
  console.log(`\n=== ${label}: ${notices.length} statements`);
  for (const notice of notices) {
    const plan = notice.slice(notice.indexOf("Query Text:"));
    const text = plan.slice(0, plan.indexOf("\n")).replace(/\s+/g, " ").slice(0, 140);
    console.log(`\n--- ${text}…\n${plan.slice(plan.indexOf("\n") + 1)}`);
  }
}

async function main(): Promise<void> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  const url = new URL(ADMIN_URL);
  url.pathname = `/${SCRATCH}`;
  await admin.unsafe(`DROP DATABASE IF EXISTS ${SCRATCH} WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE ${SCRATCH}`);
  const client = postgres(url.toString(), { max: 4, onnotice: () => {}, connection: { TimeZone: "UTC" } });
  try {
    await migrateDatabase(url.toString());
    const t0 = performance.now();
    for (const statement of LOAD) await client.unsafe(statement);
    const [count] = await client.unsafe(`SELECT count(*)::int AS n FROM task_events`);
    console.log(`loaded ${count!.n} events (${TASKS} tasks) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    console.log((await client.unsafe(`SELECT version()`))[0]!.version);

    const db = drizzle(client, { schema });
    console.log("\nmedian of %d runs, one queue of %d (a quarter of the log):", RUNS, QUEUES);
    for (const window of ["1h", "24h", "7d", "30d"] as WindowName[]) {
      const insights = await readInsights(db, { queue: "q1", window });
      const samples = insights.selected?.distributions.heartbeat_interval?.count ?? 0;
      const time = await median(() => readInsights(db, { queue: "q1", window }));
      console.log(`  /insights window ${window.padEnd(3)}: ${ms(time).padStart(9)}  (${samples} heartbeat intervals in q1)`);
    }
    console.log(`  /api/v1/metrics database reads: ${ms(await median(() => readGauges(db)))}`);

    await plans(url.toString(), "/insights, window 24h (every statement of readInsights)", (d) => readInsights(d, { queue: "q1", window: "24h" }));
    await plans(url.toString(), "/api/v1/metrics (readGauges)", (d) => readGauges(d));
  } finally {
    await client.end();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${SCRATCH} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
