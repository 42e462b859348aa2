import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { parseTimestamp } from "@/lib/tasks/core/task-row";
import type { ActorRef } from "@/lib/tasks/core/types";
import type { Cursor } from "./cursor";

/** One event as the stream sends it (API.md, "Events stream"). */
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
}

export interface FeedPage {
  events: FeedEvent[];
  /** Committed events exist past the horizon: an older transaction is still open. */
  heldBack: boolean;
}

/**
 * Events after `after`, ordered by (transaction id, event id), from transactions below the
 * visibility horizon only: every transaction older than the snapshot's xmin has finished,
 * so no event can later appear before what this returns. An open transaction delays the
 * feed (heldBack) but never makes it skip.
 */
export async function readFeed(db: Executor, after: Cursor, limit = 500): Promise<FeedPage> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
    SELECT e.tx_id::text AS tx_id, e.id::text AS id, e.task_id::text AS task_id, e.queue, e.type,
           e.payload->>'version' AS version, e.payload->>'status' AS status, e.created_at,
           a.id AS actor_id, a.name AS actor_name, a.kind AS actor_kind,
           false AS held_back
    FROM task_events e JOIN actors a ON a.id = e.actor_id, horizon
    WHERE (e.tx_id, e.id) > (${after.txId.toString()}::text::xid8, ${after.eventId.toString()}::bigint)
      AND e.tx_id < horizon.xmin
    ORDER BY e.tx_id, e.id
    LIMIT ${limit}`);
  const events = rows.map((r) => ({
    cursor: { txId: BigInt(r.tx_id as string), eventId: BigInt(r.id as string) },
    eventId: r.id as string,
    taskId: (r.task_id as string | null) ?? null,
    queue: r.queue as string,
    type: r.type as string,
    actor: { id: r.actor_id as string, name: r.actor_name as string, kind: r.actor_kind as ActorRef["kind"] },
    version: r.version === null ? null : Number(r.version),
    status: (r.status as string | null) ?? null,
    at: parseTimestamp(r.created_at as string),
  }));
  let heldBack = false;
  if (events.length < limit) {
    const [probe] = await db.execute<{ held: boolean }>(sql`
      SELECT EXISTS (
        SELECT 1 FROM task_events
        WHERE tx_id >= pg_snapshot_xmin(pg_current_snapshot())
          AND (tx_id, id) > (${after.txId.toString()}::text::xid8, ${after.eventId.toString()}::bigint)
      ) AS held`);
    heldBack = probe?.held ?? false;
  }
  return { events, heldBack };
}

/** Where a client that gives no cursor starts: after every finished transaction. */
export async function currentPosition(db: Executor): Promise<Cursor> {
  const [row] = await db.execute<{ xmin: string }>(sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
  return { txId: BigInt(row!.xmin) - 1n, eventId: (1n << 63n) - 1n };
}
