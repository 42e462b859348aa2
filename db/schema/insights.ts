import {
  primaryKey,
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { eventType } from "./enums";

/**
 * Insights' hourly rollups (lib/insights/rollup.ts, docs/insights.md "Rollups of closed
 * hours"): written once per queue and hour by the first reader that needs a closed hour,
 * never by the engine. Derived data: no foreign keys, so archiving events (dropping a
 * month of task_events) leaves the rollups of those hours in place.
 */
export const insightHours = pgTable(
  "insight_hours",
  {
    queue: text("queue").notNull(),
    /** The hour's start (UTC). The row says the hour's samples and counts are below, even if none. */
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    rolledAt: timestamp("rolled_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.queue, t.hour] })],
);

/** Step-time samples of a queue-hour (their later event in the hour) per fine log-spaced bucket. */
export const insightHourSamples = pgTable(
  "insight_hour_samples",
  {
    queue: text("queue").notNull(),
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    /** "people" or "agents": the actor of the sample's later event. */
    population: text("population").notNull(),
    metric: text("metric").notNull(),
    /** lib/insights/fine-buckets.ts: coarse histogram bucket × 10,000 + a 1 % log step within it. */
    bucket: integer("bucket").notNull(),
    n: integer("n").notNull(),
    minMs: doublePrecision("min_ms").notNull(),
    maxMs: doublePrecision("max_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.queue, t.hour, t.population, t.metric, t.bucket] })],
);

/** Counted events (claims, completions, failures, escalations, lapses) of a queue-hour per actor. */
export const insightHourCounts = pgTable(
  "insight_hour_counts",
  {
    queue: text("queue").notNull(),
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    type: eventType("type").notNull(),
    /** Who the event counts for: its actor, or for lease_expired the owner whose lease lapsed (may be unknown). */
    actorId: uuid("actor_id"),
    n: integer("n").notNull(),
  },
  (t) => [index("insight_hour_counts_queue_hour").on(t.queue, t.hour)],
);
