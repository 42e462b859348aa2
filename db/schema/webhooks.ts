import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { eventType } from "./enums";

/**
 * Endpoints supervisors register to hear of events without the board open (lib/webhooks,
 * docs/webhooks.md). The signing secret is sealed (AES-256-GCM under a key derived from the
 * server's NEXTAUTH_SECRET): it must be read back to sign each delivery, so it cannot be
 * hashed like a token; it is shown once, at creation, and never logged.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    url: text("url").notNull(),
    /** Event types delivered, or ["*"] for every type. */
    events: text("events").array().notNull(),
    /** Only these queues' events; null for every queue. */
    queues: text("queues").array(),
    description: text("description").notNull().default(""),
    secretSealed: text("secret_sealed").notNull(),
    createdBy: uuid("created_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Disabled (the receiver answered 410, or it was deleted): nothing more is written for it. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    disabledReason: text("disabled_reason"),
    /** Adopted by another supervisor after its maker's authority ended (migration 0040): it acts for them since. */
    adoptedBy: uuid("adopted_by"),
    adoptedAt: timestamp("adopted_at", { withTimezone: true }),
    /** Paused because the authority it acts with ended (lib/auth/authority.ts): when, and why; null while it holds. */
    authorityEndedAt: timestamp("authority_ended_at", { withTimezone: true }),
    authorityEndedReason: text("authority_ended_reason"),
    /** Deleted by a supervisor: gone from the lists; its rows stay for the audit's sake. */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [check("webhooks_events_not_empty", sql`cardinality(${t.events}) > 0`)],
);

/**
 * The outbox: one row per event and webhook, written by the event's own INSERT (lib/tasks/core/
 * events.ts), so a delivery exists exactly when its event committed; sent after commit by any
 * server process (lib/webhooks/sender.ts). The event's fields are copied: the log has no index
 * by event id alone, and a delivery must not depend on the log's retention.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    webhookId: uuid("webhook_id").notNull(),
    eventId: bigint("event_id", { mode: "bigint" }).notNull(),
    taskId: bigint("task_id", { mode: "bigint" }),
    queue: text("queue").notNull(),
    type: eventType("type").notNull(),
    actorId: uuid("actor_id").notNull(),
    payload: jsonb("payload").notNull(),
    eventAt: timestamp("event_at", { withTimezone: true }).notNull(),
    /** pending (to send, or to retry at next_attempt_at), delivered, or failed (out of tries, or its webhook is gone). */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** When a sender may take it: the next try, or the end of the current sender's claim. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [
    check("webhook_deliveries_status", sql`${t.status} IN ('pending', 'delivered', 'failed')`),
    // The senders' walk: only what is still to send, in the order it is due.
    index("webhook_deliveries_due").on(t.nextAttemptAt, t.id).where(sql`${t.status} = 'pending'`),
    // A webhook's delivery log, newest first.
    index("webhook_deliveries_webhook").on(t.webhookId, t.id),
  ],
);

export type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
