import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { EventType } from "@/db/schema";
import type { Plan } from "./rollup";
import { at, rangesOf, type Span } from "./window";

const HOUR_MS = 3_600_000;

/** The events counted per bar of the charts. */
export const COUNTED = ["claimed", "completed", "failed", "escalated", "lease_expired"] as const satisfies EventType[];
export type Counted = (typeof COUNTED)[number];

export interface Bucket {
  at: Date;
  counts: Record<Counted, number>;
}

/** A queue-level fact in the span: breaker trips and resets, settings changes. */
export interface QueueFact {
  at: Date;
  type: "breaker_tripped" | "breaker_reset" | "settings_changed";
  actor: { id: string; name: string; kind: string };
  payload: Record<string, unknown>;
}

/** The hours of [h0, h1) that straddle a bar's edge: their events are read raw, to land in their own bars. */
function straddlers(plan: Plan): Date[] {
  const step = plan.bucketSeconds * 1000;
  const bar = (t: number) => Math.floor((t - plan.from.getTime()) / step);
  const hours: Date[] = [];
  for (let t = plan.h0.getTime(); t < plan.h1.getTime(); t += HOUR_MS) if (bar(t) !== bar(t + HOUR_MS - 1)) hours.push(new Date(t));
  return hours;
}

/**
 * Counts per bar (date_bin from the span's start) of the queue's claims, completions,
 * failures, escalations and lapsed leases. Empty bars are filled in, so a quiet hour shows
 * as a gap, not as nothing. Bars of an hour or more take the rolled-up hours that lie
 * inside one bar from insight_hour_counts; the rest is read raw, each range one range of
 * task_events_time (BRIN on created_at), filtered by queue.
 */
export async function readSeries(db: Executor, queue: string, plan: Plan): Promise<Bucket[]> {
  const rolled = plan.bucketSeconds % 3600 === 0 ? plan : { ...plan, h0: plan.to, h1: plan.to };
  const split = straddlers(rolled);
  const ranges: [Date, Date][] = [[rolled.from, rolled.h0], [rolled.h1, rolled.to], ...split.map((h): [Date, Date] => [h, new Date(h.getTime() + HOUR_MS)])];
  const rows = await db.execute<{ at: string; type: Counted; n: number }>(sql`
    SELECT date_bin(make_interval(secs => ${plan.bucketSeconds}), x.at, ${at(plan.from)}) AS at, x.type, sum(x.n)::int AS n
    FROM (
      SELECT e.created_at AS at, e.type, 1 AS n
      FROM ${rangesOf(ranges)} CROSS JOIN LATERAL (
        SELECT created_at, type FROM task_events
        WHERE queue = ${queue} AND created_at >= r.a AND created_at < r.b
          AND type IN ('claimed', 'completed', 'failed', 'escalated', 'lease_expired')
        OFFSET 0 -- one index range per raw range: flattened, the planner scans the whole log
      ) e
      UNION ALL
      SELECT hour, type, n FROM insight_hour_counts
      WHERE queue = ${queue} AND hour >= ${at(rolled.h0)} AND hour < ${at(rolled.h1)}
        AND hour <> ALL (${`{${split.map((h) => h.toISOString()).join(",")}}`}::timestamptz[])
    ) x
    GROUP BY 1, 2`);
  const buckets: Bucket[] = [];
  const step = plan.bucketSeconds * 1000;
  for (let t = plan.from.getTime(); t < plan.to.getTime(); t += step) {
    buckets.push({ at: new Date(t), counts: { claimed: 0, completed: 0, failed: 0, escalated: 0, lease_expired: 0 } });
  }
  for (const row of rows) {
    const index = Math.floor((new Date(row.at).getTime() - plan.from.getTime()) / step);
    const bucket = buckets[index];
    if (bucket) bucket.counts[row.type] = row.n;
  }
  return buckets;
}

/**
 * The queue's breaker and settings history in the span, plus the last such fact before it
 * (the state the span began in): all from the small partial index task_events_queue_facts.
 */
export async function readQueueFacts(db: Executor, queue: string, span: Span): Promise<{ before: QueueFact | null; facts: QueueFact[] }> {
  const rows = await db.execute<{ at: string; type: QueueFact["type"]; actor_id: string; actor_name: string; actor_kind: string; payload: Record<string, unknown>; before: boolean }>(sql`
    (SELECT e.created_at AS at, e.type, e.actor_id, a.name AS actor_name, a.kind AS actor_kind, e.payload, true AS before
       FROM task_events e JOIN actors a ON a.id = e.actor_id
      WHERE e.queue = ${queue} AND e.task_id IS NULL AND e.created_at < ${at(span.from)}
        AND e.type IN ('breaker_tripped', 'breaker_reset')
      ORDER BY e.created_at DESC LIMIT 1)
    UNION ALL
    (SELECT e.created_at, e.type, e.actor_id, a.name, a.kind, e.payload, false
       FROM task_events e JOIN actors a ON a.id = e.actor_id
      WHERE e.queue = ${queue} AND e.task_id IS NULL AND e.created_at >= ${at(span.from)} AND e.created_at < ${at(span.to)}
      ORDER BY e.created_at, e.id LIMIT 1000)`);
  const toFact = (r: (typeof rows)[number]): QueueFact => ({
    at: new Date(r.at),
    type: r.type,
    actor: { id: r.actor_id, name: r.actor_name, kind: r.actor_kind },
    payload: r.payload,
  });
  const before = rows.find((r) => r.before);
  return { before: before ? toFact(before) : null, facts: rows.filter((r) => !r.before).map(toFact) };
}

export interface Claimant {
  actor: { id: string; name: string; kind: string };
  claims: number;
  completed: number;
  failed: number;
  /** Leases this claimant let lapse (the lease_expired event names the previous owner). */
  expiries: number;
  /** Of its failures, those a renewal without progress caused (reason no_progress, docs/leases.md). */
  noProgress: number;
}

/** Per person or agent in the span: claims, tasks done, failures, lapsed leases (rolled-up hours, plus the raw edges). */
export async function readClaimants(db: Executor, queue: string, plan: Plan): Promise<Claimant[]> {
  const rows = await db.execute<{ id: string; name: string; kind: string; claims: number; completed: number; failed: number; expiries: number }>(sql`
    WITH counted AS (
      SELECT CASE WHEN e.type = 'lease_expired' THEN (e.payload ->> 'previousOwnerId')::uuid ELSE e.actor_id END AS actor_id, e.type, 1 AS n
      FROM ${rangesOf([[plan.from, plan.h0], [plan.h1, plan.to]])} CROSS JOIN LATERAL (
        SELECT type, actor_id, payload FROM task_events
        WHERE queue = ${queue} AND created_at >= r.a AND created_at < r.b
          AND type IN ('claimed', 'completed', 'failed', 'lease_expired')
        OFFSET 0 -- one index range per raw range (as above)
      ) e
      UNION ALL
      SELECT actor_id, type, n FROM insight_hour_counts
      WHERE queue = ${queue} AND hour >= ${at(plan.h0)} AND hour < ${at(plan.h1)}
        AND type IN ('claimed', 'completed', 'failed', 'lease_expired')
    ),
    per_actor AS (
      SELECT actor_id,
             sum(n) FILTER (WHERE type = 'claimed')::int AS claims,
             sum(n) FILTER (WHERE type = 'completed')::int AS completed,
             sum(n) FILTER (WHERE type = 'failed')::int AS failed,
             sum(n) FILTER (WHERE type = 'lease_expired')::int AS expiries
      FROM counted GROUP BY 1
    )
    SELECT a.id, a.name, a.kind, coalesce(p.claims, 0) AS claims, coalesce(p.completed, 0) AS completed,
           coalesce(p.failed, 0) AS failed, coalesce(p.expiries, 0) AS expiries
    FROM per_actor p JOIN actors a ON a.id = p.actor_id
    ORDER BY 5 DESC, 4 DESC, a.name
    LIMIT 50`);
  const stalled = await noProgressFailures(db, queue, plan, rows.filter((r) => r.failed > 0).map((r) => r.id));
  return rows.map((r) => ({
    actor: { id: r.id, name: r.name, kind: r.kind },
    claims: r.claims,
    completed: r.completed,
    failed: r.failed,
    expiries: r.expiries,
    noProgress: stalled.get(r.id) ?? 0,
  }));
}

/**
 * no_progress failures per actor in the span: the rollups count failures by type, not reason,
 * so these are read from the log, through the actors' outcomes (task_events_actor_outcomes),
 * only for claimants that failed at all.
 */
async function noProgressFailures(db: Executor, queue: string, plan: Plan, actorIds: string[]): Promise<Map<string, number>> {
  if (actorIds.length === 0) return new Map();
  const rows = await db.execute<{ id: string; n: number }>(sql`
    SELECT actor_id::text AS id, count(*)::int AS n FROM task_events
    WHERE actor_id = ANY(${`{${actorIds.join(",")}}`}::uuid[]) AND type = 'failed' AND created_at >= ${at(plan.from)} AND created_at < ${at(plan.to)}
      AND queue = ${queue} AND payload ->> 'reason' = 'no_progress'
    GROUP BY actor_id`);
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}
