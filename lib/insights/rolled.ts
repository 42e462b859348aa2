import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { readDistributions, type DistributionSet, type Metric, type Population, type QueueDistributions } from "./distributions";
import { distributionOf, fineBucket, mergeBuckets, type FineBucket } from "./fine-buckets";
import type { Plan } from "./rollup";
import { pairedEvents, samplesFrom } from "./samples";
import { at } from "./window";

type BucketRow = { queue: string; population: Population; metric: Metric; bucket: number; n: number; min: number; max: number };

/** Fine buckets of the samples whose later event lies in [a, b), their earlier one at or after lookFrom. */
async function rawBuckets(db: Executor, a: Date, b: Date, lookFrom: Date, only?: string): Promise<BucketRow[]> {
  if (a >= b) return [];
  return db.execute<BucketRow>(sql`
    WITH ${pairedEvents(at(a), at(b), at(lookFrom), only === undefined ? sql`true` : sql`q.name = ${only}`)},
    samples AS (${samplesFrom(sql`paired`)}),
    ms AS (SELECT queue, population, metric, (extract(epoch FROM d) * 1000)::float8 AS ms FROM samples)
    SELECT queue, population, metric, ${fineBucket(sql`ms`)} AS bucket, count(*)::int AS n, min(ms) AS min, max(ms) AS max
    FROM ms GROUP BY 1, 2, 3, 4`);
}

/** The rolled-up hours' fine buckets, added up per queue, population, metric and bucket. */
async function rolledBuckets(db: Executor, plan: Plan, only?: string): Promise<BucketRow[]> {
  return db.execute<BucketRow>(sql`
    SELECT s.queue, s.population, s.metric, s.bucket, sum(s.n)::int AS n, min(s.min_ms) AS min, max(s.max_ms) AS max
    FROM queues q CROSS JOIN LATERAL (
      SELECT queue, population, metric, bucket, n, min_ms, max_ms FROM insight_hour_samples
      WHERE queue = q.name AND hour >= ${at(plan.h0)} AND hour < ${at(plan.h1)}
    ) s
    WHERE ${only === undefined ? sql`true` : sql`q.name = ${only}`}
    GROUP BY 1, 2, 3, 4`);
}

/**
 * Every queue's distributions over a plan's span. Without rolled-up hours, the exact read
 * (readDistributions). With them: the closed hours' rollups, plus the raw samples of the
 * window's head [from, h0) and tail [h1, to) — the tail's earlier events may lie in the
 * rolled hours (lookFrom = from). A sample whose later event lies in a rolled hour counts
 * whatever its earlier event (that is the rollup's definition), so an interval that began
 * before the window and ended in its first whole hour is counted where the exact read does not.
 */
export async function readPlannedDistributions(db: Executor, plan: Plan, only?: string): Promise<Map<string, DistributionSet>> {
  if (plan.h0 >= plan.h1) return readDistributions(db, plan, only);
  const parts = await Promise.all([
    rolledBuckets(db, plan, only),
    rawBuckets(db, plan.from, plan.h0, plan.from, only),
    rawBuckets(db, plan.h1, plan.to, plan.from, only),
  ]);
  const grouped = new Map<string, Map<Population, Map<Metric, FineBucket[][]>>>();
  for (const row of parts.flat()) {
    const byPopulation = grouped.get(row.queue) ?? new Map<Population, Map<Metric, FineBucket[][]>>();
    const byMetric = byPopulation.get(row.population) ?? new Map<Metric, FineBucket[][]>();
    const lists = byMetric.get(row.metric) ?? [];
    lists.push([{ bucket: Number(row.bucket), n: Number(row.n), min: Number(row.min), max: Number(row.max) }]);
    byMetric.set(row.metric, lists);
    byPopulation.set(row.population, byMetric);
    grouped.set(row.queue, byPopulation);
  }
  const result = new Map<string, DistributionSet>();
  for (const [queue, byPopulation] of grouped) {
    const set: DistributionSet = { all: {}, people: {}, agents: {} };
    const everyone = new Map<Metric, FineBucket[][]>();
    for (const [population, byMetric] of byPopulation) {
      const own: QueueDistributions = set[population];
      for (const [metric, lists] of byMetric) {
        const merged = mergeBuckets(lists);
        own[metric] = distributionOf(merged);
        everyone.set(metric, [...(everyone.get(metric) ?? []), merged]);
      }
    }
    for (const [metric, lists] of everyone) set.all[metric] = distributionOf(mergeBuckets(lists));
    result.set(queue, set);
  }
  return result;
}
