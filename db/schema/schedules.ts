import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * Recurring work (lib/schedules, docs/schedules.md): a cron in a time zone that makes a task in
 * a queue at each occurrence. Every server process ticks (no leader): a tick takes the due rows
 * with FOR UPDATE SKIP LOCKED, and each occurrence's task is an idempotent create keyed by the
 * schedule and the occurrence, so any number of instances make exactly one.
 */
export const schedules = pgTable(
  "schedules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    /** Five fields (minute hour day-of-month month day-of-week), read by cron-parser. */
    cron: text("cron").notNull(),
    /** IANA time zone the cron is read in (DST included). */
    timezone: text("timezone").notNull().default("UTC"),
    queue: text("queue").notNull(),
    /** What each occurrence creates: {title, description?, priority?, payload?}. */
    task: jsonb("task").notNull(),
    /** skip: no task while the previous occurrence's is unfinished (a schedule_skipped fact); allow: one each time. */
    overlap: text("overlap").notNull().default("skip"),
    /** After downtime — occurrences that passed with no instance running: once: one backfilled task; skip: none. */
    missed: text("missed").notNull().default("skip"),
    paused: boolean("paused").notNull().default(false),
    /** The next occurrence to handle; null while paused. */
    nextAt: timestamp("next_at", { withTimezone: true }),
    /** The last occurrence handled and what came of it: {kind: created|backfilled|skipped, taskId?, reason?}. */
    lastAt: timestamp("last_at", { withTimezone: true }),
    lastResult: jsonb("last_result"),
    lastTaskId: bigint("last_task_id", { mode: "bigint" }),
    createdBy: uuid("created_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** Adopted by another supervisor after its maker's authority ended (migration 0040): it acts for them since. */
    adoptedBy: uuid("adopted_by"),
    adoptedAt: timestamp("adopted_at", { withTimezone: true }),
    /** Paused because the authority it acts with ended (lib/auth/authority.ts): when, and why; null while it holds. */
    authorityEndedAt: timestamp("authority_ended_at", { withTimezone: true }),
    authorityEndedReason: text("authority_ended_reason"),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    check("schedules_overlap", sql`${t.overlap} IN ('skip', 'allow')`),
    check("schedules_missed", sql`${t.missed} IN ('skip', 'once')`),
    uniqueIndex("schedules_name").on(t.name).where(sql`${t.deletedAt} IS NULL`),
    // The ticks' walk: only live, unpaused schedules, by when they are due.
    index("schedules_due").on(t.nextAt).where(sql`${t.deletedAt} IS NULL AND NOT ${t.paused}`),
  ],
);

export type ScheduleRow = typeof schedules.$inferSelect;
