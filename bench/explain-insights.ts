/**
 * The insights and metrics reads on a log of 1,000,000 events (docs/insights.md): the plans
 * of the very statements /insights and /api/v1/metrics run (captured with auto_explain from
 * the code in lib/, not copied), and their median time per window.
 *   npx tsx bench/explain-insights.ts   # DATABASE_URL: a superuser URL; default the local PostgreSQL
 * Creates its own scratch database, applies the migrations, drops it at the end (~2–3 min).
 * Each window is read raw (rollups off) and rolled up (the first reader's rollup timed apart).
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migrateDatabase } from "../db/migrate";
import * as schema from "../db/schema";
import { readInsights } from "../lib/insights/insights";
import type { WindowName } from "../lib/insights/window";
import { readGauges } from "../lib/metrics/gauges";
import { INSIGHTS_QUEUES, medianMs, seedInsightsLog } from "./insights";
import { enableAutoExplain } from "./lib/auto-explain";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
// Its own per run (pid): two runs on one server must not drop each other's scratch database.
const SCRATCH = `claimboard_explain_insights_${process.pid}`;
const TASKS = Number(process.env.TASKS ?? 100_000);
const RUNS = 5;

const ms = (n: number) => `${n.toFixed(1)} ms`;

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
    await seedInsightsLog(client, TASKS);
    const [count] = await client.unsafe(`SELECT count(*)::int AS n FROM task_events`);
    console.log(`loaded ${count!.n} events (${TASKS} tasks) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    console.log((await client.unsafe(`SELECT version()`))[0]!.version);

    const db = drizzle(client, { schema });
    console.log("\nmedian of %d runs, one queue of %d (a quarter of the log) in detail; raw = rollups off, rolled = closed hours rolled up:", RUNS, INSIGHTS_QUEUES);
    for (const window of ["1h", "24h", "7d", "30d"] as WindowName[]) {
      const read = (rollups: boolean) => () => readInsights(db, { queue: "q1", window, rollups });
      const insights = await read(false)();
      const samples = insights.selected?.distributions.heartbeat_interval?.count ?? 0;
      const raw = await medianMs(RUNS, read(false));
      const t0 = performance.now();
      await read(true)(); // the first reader rolls up the window's closed hours not rolled up yet
      const first = performance.now() - t0;
      const rolled = await medianMs(RUNS, read(true));
      console.log(`  /insights window ${window.padEnd(3)}: raw ${ms(raw).padStart(9)}, first reader ${ms(first).padStart(9)}, rolled ${ms(rolled).padStart(9)}  (${samples} heartbeat intervals in q1)`);
    }
    console.log(`  /api/v1/metrics database reads: ${ms(await medianMs(RUNS, () => readGauges(db)))}`);

    await plans(url.toString(), "/insights, window 24h (every statement of readInsights)", (d) => readInsights(d, { queue: "q1", window: "24h" }));
    await plans(url.toString(), "/insights, window 30d, rolled up (every statement of readInsights)", (d) => readInsights(d, { queue: "q1", window: "30d" }));
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
