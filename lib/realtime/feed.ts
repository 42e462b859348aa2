import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { parseTimestamp } from "@/lib/tasks";
import type { ActorRef } from "@/lib/tasks/model";
import { compareCursors, type Cursor } from "./cursor";

/** One event as the stream sends it (docs/contract.md#the-event-stream). */
export interface FeedEvent {
  cursor: Cursor;
  eventId: string;
  taskId: string | null;
  queue: string;
  type: string;
  actor: ActorRef;
  version: number | null;
  status: string | null;
  at: Date;
  /** The lease end the event's payload names (a claim, a renewal), for the lapse clock; not sent to streams. */
  leaseUntil?: string | null;
}

export interface FeedPage {
  events: FeedEvent[];
  /** Committed events exist past the horizon: an older transaction is still open. */
  heldBack: boolean;
  /**
   * How far the read got: the last event's cursor of a full page, else the read's own
   * horizon. A filtered read returns only matching events; a reader moves its cursor here,
   * or it would read the same non-matching stretch again next time.
   */
  through: Cursor;
}

/** Which events a read returns; the stream's ?queue= and ?task=. */
export interface FeedFilter {
  queue?: string;
  taskId?: string;
}

const MAX_EVENT_ID = (1n << 63n) - 1n;

/**
 * Events after `after`, ordered by (transaction id, event id), from transactions below the
 * visibility horizon only: every transaction older than the snapshot's xmin has finished,
 * so no event can later appear before what this returns. An open transaction delays the
 * feed (heldBack) but never makes it skip. The filter is applied in SQL, on an index
 * (task_events_queue_feed, task_events_task): a replay of a quiet queue from an old cursor
 * reads that queue's events, not the whole log.
 */
export async function readFeed(db: Executor, after: Cursor, limit = 500, filter: FeedFilter = {}): Promise<FeedPage> {
  const afterTx = after.txId.toString();
  const afterId = after.eventId.toString();
  // One row per event, plus the horizon on a row of its own when no event matches, so the
  // page knows how far it got from the very snapshot that read it.
  const rows = await db.execute<Record<string, unknown>>(sql`
    WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
    SELECT horizon.xmin::text AS horizon, page.* FROM horizon LEFT JOIN LATERAL (
      SELECT e.tx_id::text AS tx_id, e.id::text AS id, e.task_id::text AS task_id, e.queue, e.type,
             e.payload->>'version' AS version, e.payload->>'status' AS status, e.created_at, e.payload->>'leaseUntil' AS lease_until,
             a.id AS actor_id, a.name AS actor_name, a.kind AS actor_kind
      FROM task_events e JOIN actors a ON a.id = e.actor_id
      WHERE (e.tx_id, e.id) > (${afterTx}::text::xid8, ${afterId}::bigint)
        AND e.tx_id < horizon.xmin
        ${filter.queue === undefined ? sql`` : sql`AND e.queue = ${filter.queue}`}
        ${filter.taskId === undefined ? sql`` : sql`AND e.task_id = ${filter.taskId}::bigint`}
      ORDER BY e.tx_id, e.id
      LIMIT ${limit}
    ) page ON true
    ORDER BY page.tx_id::xid8, page.id::bigint`);
  const horizon = BigInt((rows[0]?.horizon as string | undefined) ?? "1");
  const events = rows.filter((r) => r.id !== null).map((r) => ({
    cursor: { txId: BigInt(r.tx_id as string), eventId: BigInt(r.id as string) },
    eventId: r.id as string,
    taskId: (r.task_id as string | null) ?? null,
    queue: r.queue as string,
    type: r.type as string,
    actor: { id: r.actor_id as string, name: r.actor_name as string, kind: r.actor_kind as ActorRef["kind"] },
    version: r.version === null ? null : Number(r.version),
    status: (r.status as string | null) ?? null,
    at: parseTimestamp(r.created_at as string),
    leaseUntil: (r.lease_until as string | null) ?? null,
  }));
  let heldBack = false;
  const full = events.length >= limit;
  if (!full) {
    const [probe] = await db.execute<{ held: boolean }>(sql`
      SELECT EXISTS (
        SELECT 1 FROM task_events
        WHERE tx_id >= pg_snapshot_xmin(pg_current_snapshot())
          AND (tx_id, id) > (${afterTx}::text::xid8, ${afterId}::bigint)
      ) AS held`);
    heldBack = probe?.held ?? false;
  }
  const through = full ? events.at(-1)!.cursor : maxCursor(after, { txId: horizon - 1n, eventId: MAX_EVENT_ID });
  return { events, heldBack, through };
}

const maxCursor = (a: Cursor, b: Cursor): Cursor => (compareCursors(a, b) >= 0 ? a : b);

/** Where a client that gives no cursor starts: after every finished transaction. */
export async function currentPosition(db: Executor): Promise<Cursor> {
  const [row] = await db.execute<{ xmin: string }>(sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
  return { txId: BigInt(row!.xmin) - 1n, eventId: MAX_EVENT_ID };
}
