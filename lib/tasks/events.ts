import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { EventType } from "@/db/schema";
import type { Clock } from "./clock";
import { executePrepared } from "./prepared";

/** The NOTIFY channel: a wake-up for listeners, never the source of truth (task_events is). */
export const NOTIFY_CHANNEL = "claimboard_events";

export const SYSTEM_ACTOR_ID = "00000000-0000-0000-0000-000000000000";

export interface NewEvent {
  taskId: bigint | null;
  queue: string;
  type: EventType;
  actorId: string;
  payload: Record<string, unknown>;
}

/**
 * Appends events and NOTIFYs in the same statement, so both commit with the caller's
 * transition or neither does. Ids are taken in the order given. The notification carries
 * only ids (first, last, count): constant size, far below NOTIFY's 8000-byte cap.
 */
export async function appendEvents(tx: Executor, clock: Clock, events: NewEvent[]): Promise<bigint[]> {
  if (events.length === 0) return [];
  const rows = events.map(
    (e) => sql`(${e.taskId === null ? null : e.taskId.toString()}::bigint, ${e.queue}, ${e.type}::event_type,
                ${e.actorId}::uuid, ${JSON.stringify(e.payload)}::jsonb, ${clock.now()})`,
  );
  const [notified] = await executePrepared<{ ids: string[] }>(tx, sql`
    WITH inserted AS (
      INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
      VALUES ${sql.join(rows, sql`, `)}
      RETURNING id
    )
    SELECT pg_notify(${NOTIFY_CHANNEL}, json_build_object(
             'first', min(id)::text, 'last', max(id)::text, 'count', count(*))::text),
           array_agg(id::text ORDER BY id) AS ids
    FROM inserted`);
  return (notified?.ids ?? []).map((id) => BigInt(id));
}
