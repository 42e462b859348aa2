import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { commitBehind, executePrepared, perTransaction } from "@/db/hot-path";
import type { Clock } from "./clock";
import type { TypedEvent } from "./event-payloads";

/** The NOTIFY channel: a wake-up for listeners, never the source of truth (task_events is). */
export const NOTIFY_CHANNEL = "claimboard_events";

export const SYSTEM_ACTOR_ID = "00000000-0000-0000-0000-000000000000";

/** An event to append: its payload is checked against its type's interface (event-payloads.ts). */
export type NewEvent = { taskId: bigint | null; queue: string; actorId: string } & TypedEvent;

/** Transactions whose events are being gathered for one write at the end (see oneEventWrite). */
const gathering = perTransaction<NewEvent[]>();

/**
 * Appends events (and their webhook deliveries) and NOTIFYs in the same statement, so all commit with the caller's
 * transition or neither does. Ids are taken in the order given. The notification carries
 * only ids (first, last, count): constant size, far below NOTIFY's 8000-byte cap.
 * Inside oneEventWrite the events wait for its single write instead.
 */
export async function appendEvents(tx: Executor, clock: Clock, events: NewEvent[]): Promise<bigint[]> {
  const gathered = gathering.get(tx);
  if (gathered) {
    gathered.push(...events);
    return [];
  }
  if (events.length === 0) return [];
  const rows = events.map(
    (e) => sql`(${e.taskId === null ? null : e.taskId.toString()}::bigint, ${e.queue}, ${e.type}::event_type,
                ${e.actorId}::uuid, ${JSON.stringify(e.payload)}::jsonb, ${clock.now()})`,
  );
  const [notified] = await executePrepared<{ ids: string[] }>(tx, sql`
    WITH inserted AS (
      INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
      VALUES ${sql.join(rows, sql`, `)}
      RETURNING id, task_id, queue, type, actor_id, payload, created_at
    ), outbox AS (
      -- The webhooks' outbox (lib/webhooks): a delivery per matching live webhook, committed
      -- with its event or not at all. With no webhook registered this joins an empty table.
      INSERT INTO webhook_deliveries (webhook_id, event_id, task_id, queue, type, actor_id, payload, event_at, next_attempt_at)
      SELECT w.id, i.id, i.task_id, i.queue, i.type, i.actor_id, i.payload, i.created_at, i.created_at
      FROM inserted i JOIN webhooks w
        ON w.disabled_at IS NULL AND (i.type::text = ANY (w.events) OR '*' = ANY (w.events))
       AND (w.queues IS NULL OR i.queue = ANY (w.queues))
    )
    SELECT pg_notify(${NOTIFY_CHANNEL}, json_build_object(
             'first', min(id)::text, 'last', max(id)::text, 'count', count(*))::text),
           array_agg(id::text ORDER BY id) AS ids
    FROM inserted`);
  return (notified?.ids ?? []).map((id) => BigInt(id));
}

/**
 * Runs `body` — several transitions of one transaction — and writes all their events
 * afterwards in one INSERT with one NOTIFY: a composite call (complete and claim next, a
 * batch of completions) costs one event round trip and wakes listeners once. Every
 * transition still has its events, in the order it wrote them, in the same transaction.
 * A body that throws writes none (the transaction rolls back anyway).
 */
export async function oneEventWrite<T>(tx: Executor, clock: Clock, body: () => Promise<T>): Promise<T> {
  if (gathering.has(tx)) return body(); // already gathering: the outer call writes them
  const events: NewEvent[] = [];
  gathering.set(tx, events);
  let result: T;
  try {
    result = await body();
  } finally {
    gathering.delete(tx);
  }
  // Nothing reads the insert's answer: in a transaction of db/client's, COMMIT goes with it.
  const write = appendEvents(tx, clock, events);
  if (!commitBehind(tx, write)) await write;
  return result;
}
