/**
 * The insights log (docs/insights.md "Cost on a large log"): `tasks` done tasks over 30 days
 * in 4 queues, 10 events each (created, claimed, started, six heartbeats, completed) 5–50 s
 * apart, every event in a transaction of its own (explicit tx ids); 1 task in 40 lost its
 * first lease (a lease_expired + claimed instead of a heartbeat). Ends now. Shared by
 * bench/explain-insights.ts and the bench row insights-30d-1m (bench/run.ts).
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "../db/schema";
import { readInsights } from "../lib/insights/insights";
import type { WindowName } from "../lib/insights/window";
import type { Row } from "./lib/report";
import { insertTasks } from "./lib/seed";
import { paired } from "./lib/report";

export const INSIGHTS_QUEUES = 4;
export const EVENTS_PER_TASK = 10;
const AGENT = "11111111-1111-4111-8111-111111111111";

export const insightsLoad = (tasks: number) => [
  // A partition per month written into, as a deployment that ran through them has (migration 0012).
  `SELECT task_events_ensure_partitions(now() - interval '31 days')`,
  `INSERT INTO actors (id, kind, name) VALUES ('${AGENT}', 'agent', 'bench-agent')`,
  `INSERT INTO queues (name) SELECT 'q' || g FROM generate_series(0, ${INSIGHTS_QUEUES - 1}) g`,
  insertTasks(`INSERT INTO task_state (queue, status, version, created_at, updated_at)
   SELECT 'q' || (g % ${INSIGHTS_QUEUES}), 'done', 9,
          now() - interval '30 days' + g * (interval '30 days' / ${tasks}) - interval '10 minutes',
          now() - interval '30 days' + g * (interval '30 days' / ${tasks})
   FROM generate_series(1, ${tasks}) g`),
  `INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at, tx_id)
   SELECT t.id, t.queue,
          (CASE WHEN k = 1 THEN 'created' WHEN k = 2 THEN 'claimed' WHEN k = 3 THEN 'started'
                WHEN k = 10 THEN 'completed'
                WHEN k = 5 AND t.id % 40 = 0 THEN 'lease_expired' WHEN k = 6 AND t.id % 40 = 0 THEN 'claimed'
                ELSE 'heartbeat' END)::event_type,
          '${AGENT}', '{}', t.created_at + k * interval '5 seconds' + (t.id % 10) * k * interval '4 seconds',
          (t.id * ${EVENTS_PER_TASK} + k)::text::xid8
   FROM task_state t CROSS JOIN generate_series(1, ${EVENTS_PER_TASK}) k
   ORDER BY t.id, k`,
  // VACUUM, not only ANALYZE: a month of log in production has its block ranges summarised
  // (autovacuum, task_events_time autosummarize); a bulk load has none until a vacuum.
  `VACUUM ANALYZE`,
];

export async function seedInsightsLog(client: postgres.Sql, tasks: number): Promise<void> {
  for (const statement of insightsLoad(tasks)) await client.unsafe(statement);
}

export async function medianMs(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/**
 * insights-30d-1m: the median /insights read (readInsights, one queue in detail, every queue
 * at a glance) over 30 days, with the closed hours rolled up, ÷ the same read raw
 * (rollups: false) — alternated in one run. The first reader's rollup is timed apart.
 */
export async function insightsRow(url: string, tasks: number, reps: number, quick: boolean): Promise<Row> {
  const client = postgres(url, { max: 4, onnotice: () => {}, connection: { TimeZone: "UTC" } });
  try {
    await seedInsightsLog(client, tasks);
    const db = drizzle(client, { schema });
    const read = (rollups: boolean, window: WindowName = "30d") => () => readInsights(db, { queue: "q1", window, rollups });
    const t0 = performance.now();
    await read(true)();
    const first = performance.now() - t0;
    const [rolled] = await client.unsafe(`SELECT count(*)::int AS hours FROM insight_hours`);
    const p = await paired(reps, () => medianMs(5, read(true)), () => medianMs(3, read(false)));
    const oneHour = await medianMs(5, read(true, "1h"));
    const events = tasks * EVENTS_PER_TASK;
    return {
      name: "insights-30d-1m",
      metric: `/insights 30 d median ms at ${events.toLocaleString("en")} events, closed hours rolled up ÷ the same read raw`,
      value: p.a.median,
      baseline: p.b.median,
      ratio: p.ratio.median,
      goal: "<= 300 ms",
      met: p.a.median <= 300,
      spread: [p.ratio.min, p.ratio.max],
      note: `${quick ? `quick run: ${events.toLocaleString("en")} events instead of 1,000,000; ` : ""}` +
        `first reader (rolls up ${rolled!.hours} queue-hours) ${first.toFixed(0)} ms; window 1 h ${oneHour.toFixed(1)} ms; ` +
        `rolled ${p.a.min.toFixed(0)}–${p.a.max.toFixed(0)} ms, raw ${p.b.min.toFixed(0)}–${p.b.max.toFixed(0)} ms`,
    };
  } finally {
    await client.end();
  }
}
