import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { eventsInRange, samplesFrom } from "./samples";
import { at, type Span } from "./window";

/** What we measure between events of one task (docs/insights.md defines each). */
export const METRICS = ["claim_to_start", "start_to_complete", "heartbeat_interval", "time_in_queue"] as const;
export type Metric = (typeof METRICS)[number];

/** Histogram edges in ms: bucket i holds [EDGES[i-1], EDGES[i]); the last is open-ended. */
export const EDGES_MS = [
  250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 20_000, 30_000, 45_000, 60_000, 90_000, 120_000, 180_000, 300_000,
  600_000, 1_200_000, 1_800_000, 3_600_000,
];

export interface Distribution {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** counts[i]: samples below EDGES_MS[i] (and at least EDGES_MS[i-1]); the last counts the rest. */
  counts: number[];
}

export type QueueDistributions = Partial<Record<Metric, Distribution>>;

/** People (signed-in users) and agents (tokens) work differently: each step is measured for both apart. */
export const POPULATIONS = ["people", "agents"] as const;
export type Population = (typeof POPULATIONS)[number];

/** A queue's distributions over everyone, and for each population apart. */
export interface DistributionSet {
  all: QueueDistributions;
  people: QueueDistributions;
  agents: QueueDistributions;
}

type Row = {
  queue: string;
  /** Null: every population together. */
  population: Population | null;
  metric: Metric;
  n: number;
  p: number[];
  max: number;
  histogram: Record<string, number>;
};

/**
 * Every queue's (or only one's) step-time distributions over the span, in one statement. Each queue's
 * events of the span are one range of task_events_time, BRIN (LATERAL per queue, so the
 * index is used without a scan of the log); window functions pair each event with the
 * task's earlier ones. An event whose partner lies before the span is not a sample.
 * Events of one transaction (claim-next with start) are not an interval of silence.
 * Each sample belongs to the population of the actor of its later event — the owner who
 * started, renewed or completed, the claimer who ended a wait — and every statistic is
 * computed for everyone and for each population (GROUPING SETS: one pass).
 */
export async function readDistributions(db: Executor, span: Span, only?: string): Promise<Map<string, DistributionSet>> {
  const rows = await db.execute<Row>(sql`
    WITH ${eventsInRange(at(span.from), at(span.to), only === undefined ? sql`true` : sql`q.name = ${only}`)},
    samples AS (${samplesFrom(sql`ev`)}
    ),
    ms AS (
      SELECT queue, population, metric, extract(epoch FROM d) * 1000 AS ms FROM samples
    ),
    stats AS (
      SELECT queue, CASE WHEN grouping(population) = 0 THEN population END AS population, metric, count(*)::int AS n,
             percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY ms) AS p, max(ms)::float8 AS max
      FROM ms GROUP BY GROUPING SETS ((queue, metric), (queue, population, metric))
    ),
    buckets AS (
      SELECT queue, CASE WHEN grouping(population) = 0 THEN population END AS population, metric,
             width_bucket(ms, ${sql.raw(`ARRAY[${EDGES_MS.join(",")}]::float8[]`)}) AS bucket, count(*)::int AS n
      FROM ms GROUP BY GROUPING SETS ((queue, metric, bucket), (queue, population, metric, bucket))
    ),
    histogram AS (
      SELECT queue, population, metric, jsonb_object_agg(bucket, n) AS histogram FROM buckets GROUP BY queue, population, metric
    )
    SELECT s.queue, s.population, s.metric, s.n, s.p, s.max, h.histogram
    FROM stats s JOIN histogram h
      ON h.queue = s.queue AND h.metric = s.metric AND h.population IS NOT DISTINCT FROM s.population`);
  const result = new Map<string, DistributionSet>();
  for (const row of rows) {
    const counts = Array.from({ length: EDGES_MS.length + 1 }, (_, i) => row.histogram[String(i)] ?? 0);
    const [p50, p95, p99] = row.p.map(Number);
    const entry = result.get(row.queue) ?? { all: {}, people: {}, agents: {} };
    entry[row.population ?? "all"][row.metric] = { count: row.n, p50: p50!, p95: p95!, p99: p99!, max: Number(row.max), counts };
    result.set(row.queue, entry);
  }
  return result;
}
