/**
 * This process's counters, for /api/v1/metrics. Prometheus scrapes every server process
 * and sums; a restart starts them at zero, which rate() and increase() expect. Kept on
 * globalThis: Next.js may load this module once per bundle, and there must be one set.
 */
export const CLAIM_OPERATIONS = new Set(["claim", "claimNext", "claimBatch"]);
/** Seconds; claim calls are a few ms, a busy database makes them tens or hundreds. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface Histogram {
  /** counts[i]: observations ≤ LATENCY_BUCKETS[i] and above the previous bucket; the last: above all. */
  counts: number[];
  sum: number;
  count: number;
}

export interface Registry {
  /** Committed events seen by this process's hub, by queue then type. */
  events: Map<string, Map<string, number>>;
  /** Engine calls answered with a conflict or error code, by code. */
  refusals: Map<string, number>;
  /** Duration of claim calls (claim, claimNext, claimBatch), by operation. */
  claimLatency: Map<string, Histogram>;
}

const holder = globalThis as unknown as { claimboardMetrics?: Registry };

export function registry(): Registry {
  holder.claimboardMetrics ??= { events: new Map(), refusals: new Map(), claimLatency: new Map() };
  return holder.claimboardMetrics;
}

const bump = <K>(map: Map<K, number>, key: K, by = 1) => map.set(key, (map.get(key) ?? 0) + by);

/** Called by the engine after every operation. */
export function observeOperation(name: string, seconds: number, errorCode: string | null): void {
  const r = registry();
  if (errorCode) bump(r.refusals, errorCode);
  if (!CLAIM_OPERATIONS.has(name)) return;
  let histogram = r.claimLatency.get(name);
  if (!histogram) r.claimLatency.set(name, (histogram = { counts: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
  const bucket = LATENCY_BUCKETS.findIndex((le) => seconds <= le);
  histogram.counts[bucket === -1 ? LATENCY_BUCKETS.length : bucket]!++;
  histogram.sum += seconds;
  histogram.count++;
}

/** Called by the hub with every batch of committed events it reads. */
export function observeEvents(events: { queue: string; type: string }[]): void {
  const r = registry();
  for (const e of events) {
    let byType = r.events.get(e.queue);
    if (!byType) r.events.set(e.queue, (byType = new Map()));
    bump(byType, e.type);
  }
}
