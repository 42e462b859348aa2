import { sql } from "drizzle-orm";
import { bigint, check, integer, jsonb, pgTable, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { actors, taskState } from "./tasks";

/**
 * Checkpoints (migration 0038; docs/checkpoints.md): how far an attempt got, one row per step of
 * the attempt that recorded it. The task row names its latest (task_state.checkpoint_id), so a
 * task's read costs a key lookup here only when it has one.
 */
export const taskCheckpoints = pgTable(
  "task_checkpoints",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedByDefaultAsIdentity(),
    taskId: bigint("task_id", { mode: "bigint" }).notNull().references(() => taskState.id),
    /** The attempt that recorded it: only the current attempt writes, so an earlier one's rows stay as they were. */
    attempt: integer("attempt").notNull(),
    step: integer("step").notNull(),
    state: jsonb("state"),
    byId: uuid("by_id").notNull().references(() => actors.id),
    at: timestamp("at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("task_checkpoints_step").on(t.taskId, t.attempt, t.step),
    check("task_checkpoints_step_range", sql`${t.step} BETWEEN 1 AND 200`),
    check("task_checkpoints_attempt_positive", sql`${t.attempt} >= 1`),
  ],
);
