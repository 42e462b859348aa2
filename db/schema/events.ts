import { sql } from "drizzle-orm";
import {
  bigint,
  customType,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { eventType } from "./enums";

/** PostgreSQL's 64-bit transaction id; the realtime replay orders by it. */
const xid8 = customType<{ data: string; driverData: string }>({
  dataType: () => "xid8",
});

/** Append-only: a trigger (see the hand-written migration) refuses UPDATE, DELETE and TRUNCATE. */
export const taskEvents = pgTable(
  "task_events",
  {
    // A sequence default, not an identity column: PostgreSQL 15 has no identity columns on
    // partitioned tables (17 has). The sequence keeps the ids the old table handed out
    // (migration 0012); nothing inserts an id by hand, so ids still rise within a transaction.
    id: bigint("id", { mode: "bigint" }).notNull().default(sql`nextval('task_events_id_seq')`),
    // No foreign keys (migration 0017): the engine writes every event beside the transition it
    // records, with the task, queue and actor that transition just read; a key check would
    // repeat that read and, worse, take KEY SHARE on the one queue row and the one agent row
    // that every worker shares — a multixact per event (CHANGELOG.md "The write path").
    // Nothing deletes tasks, queues or actors; the fold oracle (lib/tasks/reads/fold.test.ts) checks no event
    // points nowhere after its random runs of every kind of step.
    /** Null for queue-level facts (breaker_tripped, breaker_reset, settings_changed). */
    taskId: bigint("task_id", { mode: "bigint" }),
    queue: text("queue").notNull(),
    type: eventType("type").notNull(),
    actorId: uuid("actor_id").notNull(),
    payload: jsonb("payload").notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    txId: xid8("tx_id")
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  // Partitioned by month on created_at (migration 0012, docs/event-log.md):
  // drizzle-kit knows nothing of partitions; the key must hold the partition column.
  // No primary key (migration 0017): ids come from one sequence and nothing inserts one by
  // hand; every read by id also names the task, and so walks task_events_task.
  (t) => [
    index("task_events_task").on(t.taskId, t.id),
    // The realtime feed walks events in (transaction id, event id) order.
    index("task_events_feed").on(t.txId, t.id),
    // A stream of one queue replays in that order too, reading only that queue's events
    // (lib/realtime/feed.ts); a task's few events are found through task_events_task.
    index("task_events_queue_feed").on(t.queue, t.txId, t.id),
    // Time ranges of the whole log (insights' raw ranges, the breaker's clock probe, the
    // fleet's recent window): events are appended in created_at order, so a block-range
    // index finds a range for next to nothing on the write path (migration 0026 dropped the
    // btree (queue, created_at), which took every event of the loop).
    index("task_events_time").using("brin", t.createdAt).with({ pages_per_range: 32, autosummarize: true }),
    // The queue list's throughput: finished events of one queue in the last hour and day
    // (one entry a task: its completion). task_event_finishes is the hand-written migration's
    // SQL function: a query names it to use the index.
    index("task_events_queue_finished").on(t.queue, t.createdAt).where(sql`task_event_finishes(${t.type})`),
    index("task_events_expiries").on(t.queue, t.createdAt).where(sql`${t.type} = 'lease_expired'`),
    // Queue-level facts are few: the breaker's and the settings' history is a short walk here.
    index("task_events_queue_facts").on(t.queue, t.createdAt).where(sql`${t.taskId} IS NULL`),
    // The fleet page (lib/fleet.ts): an agent's done and failed over 24 h, and its newest
    // outcome when it has been quiet longer than the recent window (task_events_time).
    index("task_events_actor_outcomes").on(t.actorId, t.type, t.createdAt).where(sql`${t.type} IN ('completed', 'failed')`),
    // Its lapses: lease_expired is written by the system, the lapsed owner is in the payload.
    index("task_events_lapsed_owner")
      .on(sql`(${t.payload}->>'previousOwnerId')`, t.createdAt)
      .where(sql`${t.type} = 'lease_expired'`),
  ],
);
