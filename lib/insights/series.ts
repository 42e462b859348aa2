import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { EventType } from "@/db/schema";
import { at, type Span } from "./window";

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

/**
 * Counts per bar (date_bin from the span's start) of the queue's claims, completions,
 * failures, escalations and lapsed leases: one range of task_events_queue_time. Empty bars
 * are filled in, so a quiet hour shows as a gap, not as nothing.
 */
export async function readSeries(db: Executor, queue: string, span: Span): Promise<Bucket[]> {
  const rows = await db.execute<{ at: string; type: Counted; n: number }>(sql`
    SELECT date_bin(make_interval(secs => ${span.bucketSeconds}), created_at, ${at(span.from)}) AS at,
           type, count(*)::int AS n
    FROM task_events
    WHERE queue = ${queue} AND created_at >= ${at(span.from)} AND created_at < ${at(span.to)}
      AND type IN ('claimed', 'completed', 'failed', 'escalated', 'lease_expired')
    GROUP BY 1, 2`);
  const buckets: Bucket[] = [];
  const step = span.bucketSeconds * 1000;
  for (let t = span.from.getTime(); t < span.to.getTime(); t += step) {
    buckets.push({ at: new Date(t), counts: { claimed: 0, completed: 0, failed: 0, escalated: 0, lease_expired: 0 } });
  }
  for (const row of rows) {
    const index = Math.floor((new Date(row.at).getTime() - span.from.getTime()) / step);
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
}

/** Per person or agent in the span: claims, tasks done, failures, lapsed leases. */
export async function readClaimants(db: Executor, queue: string, span: Span): Promise<Claimant[]> {
  const rows = await db.execute<{ id: string; name: string; kind: string; claims: number; completed: number; failed: number; expiries: number }>(sql`
    WITH per_actor AS (
      SELECT CASE WHEN type = 'lease_expired' THEN (payload ->> 'previousOwnerId')::uuid ELSE actor_id END AS actor_id,
             count(*) FILTER (WHERE type = 'claimed')::int AS claims,
             count(*) FILTER (WHERE type = 'completed')::int AS completed,
             count(*) FILTER (WHERE type = 'failed')::int AS failed,
             count(*) FILTER (WHERE type = 'lease_expired')::int AS expiries
      FROM task_events
      WHERE queue = ${queue} AND created_at >= ${at(span.from)} AND created_at < ${at(span.to)}
        AND type IN ('claimed', 'completed', 'failed', 'lease_expired')
      GROUP BY 1
    )
    SELECT a.id, a.name, a.kind, p.claims, p.completed, p.failed, p.expiries
    FROM per_actor p JOIN actors a ON a.id = p.actor_id
    ORDER BY p.completed DESC, p.claims DESC, a.name
    LIMIT 50`);
  return rows.map((r) => ({
    actor: { id: r.id, name: r.name, kind: r.kind },
    claims: r.claims,
    completed: r.completed,
    failed: r.failed,
    expiries: r.expiries,
  }));
}
