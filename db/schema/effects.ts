import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { actors, taskState } from "./tasks";

/** An effect's states (docs/contract.md#the-effect-ledger; the moves: lib/tasks/effects/effects.ts): the one list. */
export const effectState = pgEnum("effect_state", ["intended", "applied", "failed", "unknown"]);
export type EffectState = (typeof effectState.enumValues)[number];
/** Still open: an intent its attempt acts on, or unknown once that attempt ended first (the task_effects_open index). */
export const OPEN_EFFECT_STATES = ["intended", "unknown"] as const satisfies readonly EffectState[];
export type OpenEffectState = (typeof OPEN_EFFECT_STATES)[number];
/** Resolved for good: what became of the act. A resolution names one of these. */
export const RESOLVED_EFFECT_STATES = ["applied", "failed"] as const satisfies readonly EffectState[];
export type ResolvedEffectState = (typeof RESOLVED_EFFECT_STATES)[number];

/**
 * The effect ledger: what an agent does outside the board, one row per act. Recorded before the
 * act (intended), resolved after it (applied, failed); an attempt that ends with an intent open
 * leaves it unknown, and the next holder says what happened. The task row keeps the counts the
 * loop's guards read (tasks.intended_effects, tasks.unknown_effects), so a task without effects
 * costs the loop no statement here.
 */
export const taskEffects = pgTable(
  "task_effects",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    taskId: bigint("task_id", { mode: "bigint" }).notNull().references(() => taskState.id),
    name: text("name").notNull(),
    key: text("key"),
    /** Stable for the task and key (or name) across every attempt: what the agent sends downstream. */
    idempotencyKey: text("idempotency_key").notNull(),
    target: text("target"),
    detail: jsonb("detail"),
    state: effectState("state").notNull().default("intended"),
    /** The attempt that recorded it. */
    attempt: integer("attempt").notNull(),
    byId: uuid("by_id").notNull().references(() => actors.id),
    at: timestamp("at", { withTimezone: true }).notNull(),
    resolvedById: uuid("resolved_by_id").references(() => actors.id),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    externalRef: text("external_ref"),
    note: text("note"),
    /** Recorded through v1's POST …/side-effects: its facts ride on the v1 events (docs/effects.md). */
    viaSideEffect: boolean("via_side_effect").notNull().default(false),
  },
  (t) => [
    uniqueIndex("task_effects_key").on(t.taskId, t.idempotencyKey),
    // The open ones of a task (intended, unknown): what a lapse turns, what a claim carries.
    index("task_effects_open").on(t.taskId, t.id).where(sql`${t.state} IN ('intended', 'unknown')`),
    check("task_effects_resolved", sql`(${t.state} IN ('applied', 'failed')) = (${t.resolvedAt} IS NOT NULL)`),
  ],
);
