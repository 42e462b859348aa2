import { sql, type SQL } from "drizzle-orm";
import { EDGES_MS, type Distribution } from "./distributions";

/**
 * Fine log-spaced buckets: what an hour's rollup keeps of its step times instead of the
 * samples themselves. A bucket never straddles an edge of the page's histogram (EDGES_MS),
 * so the histogram is exact; within a histogram bucket [E, E') the fine steps are 1 % wide
 * (bucket = coarse × 10,000 + floor(log_1.01(ms / E)) + 1), so a percentile estimated from
 * them is within 1 % of the exact one (docs/insights.md "Rollups of closed hours").
 * Below 1 ms everything is one bucket (sub-step 0): claim-next's start in the same call.
 */
export const FINE_RATIO = 1.01;
const COARSE = 10_000;

const edges = sql.raw(`ARRAY[${EDGES_MS.join(",")}]::float8[]`);
const lowers = sql.raw(`ARRAY[1,${EDGES_MS.join(",")}]::float8[]`);

/** The fine bucket of a duration in ms (an SQL float8 expression), the same in the rollup and in raw reads. */
export function fineBucket(ms: SQL): SQL {
  return sql`(width_bucket(${ms}, ${edges}) * ${sql.raw(String(COARSE))}
    + CASE WHEN ${ms} < 1 THEN 0 ELSE floor(ln(${ms} / (${lowers})[width_bucket(${ms}, ${edges}) + 1]) / ln(${sql.raw(String(FINE_RATIO))}))::int + 1 END)`;
}

/** One fine bucket of a population's metric: how many samples, their least and greatest. */
export interface FineBucket {
  bucket: number;
  n: number;
  min: number;
  max: number;
}

/** Adds fine buckets (of several hours, or of two populations) into one list, bucket by bucket. */
export function mergeBuckets(lists: FineBucket[][]): FineBucket[] {
  const by = new Map<number, FineBucket>();
  for (const list of lists) {
    for (const b of list) {
      const had = by.get(b.bucket);
      by.set(b.bucket, had ? { bucket: b.bucket, n: had.n + b.n, min: Math.min(had.min, b.min), max: Math.max(had.max, b.max) } : { ...b });
    }
  }
  return [...by.values()].sort((a, b) => a.bucket - b.bucket);
}

/**
 * The distribution the page shows, from fine buckets: count, max and the histogram exact;
 * p50/p95/p99 as percentile_cont would interpolate them, with each bucket's samples taken
 * as spread evenly between its least and greatest (exact when a bucket holds one value).
 */
export function distributionOf(buckets: FineBucket[]): Distribution {
  const sorted = [...buckets].sort((a, b) => a.bucket - b.bucket);
  const count = sorted.reduce((n, b) => n + b.n, 0);
  const counts = Array.from({ length: EDGES_MS.length + 1 }, () => 0);
  for (const b of sorted) counts[Math.floor(b.bucket / COARSE)]! += b.n;
  const valueAt = (rank: number): number => {
    let seen = 0;
    for (const b of sorted) {
      if (rank < seen + b.n) return b.n === 1 ? b.min : b.min + ((b.max - b.min) * (rank - seen)) / (b.n - 1);
      seen += b.n;
    }
    return sorted.at(-1)?.max ?? 0;
  };
  const percentile = (p: number) => {
    const rank = p * (count - 1);
    const low = Math.floor(rank);
    return valueAt(low) + (rank - low) * (valueAt(Math.min(count - 1, low + 1)) - valueAt(low));
  };
  return {
    count,
    p50: percentile(0.5),
    p95: percentile(0.95),
    p99: percentile(0.99),
    max: Math.max(...sorted.map((b) => b.max)),
    counts,
  };
}
