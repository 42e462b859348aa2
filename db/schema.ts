import { sql, type SQL } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  uniqueIndex,
  boolean,
  check,
  primaryKey,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";

export const taskStatus = pgEnum("task_status", [
  "queued",
  "claimed",
  "started",
  "done",
  "escalated",
  "cancelled",
]);

export const actorKind = pgEnum("actor_kind", ["user", "agent", "system"]);

export const eventType = pgEnum("event_type", [
  "created",
  "claimed",
  "claim_rejected",
  "started",
  "check_confirmed",
  "heartbeat",
  "side_effect",
  "released",
  "lease_expired",
  "failed",
  "escalated",
  "requeued",
  "resolved",
  "completed",
  "cancelled",
  "breaker_tripped",
  "breaker_reset",
  // A supervisor changed a queue's settings (lease length, max failures, breaker bounds).
  "settings_changed",
  // A heartbeat met the queue's attempt ceiling (maxAttemptSeconds): the lease was not extended.
  "attempt_limit_reached",
  // The work graph (docs/engine.md): dependencies added to a queued task; its last one done.
  "dependency_added",
  "unblocked",
  // A supervisor paused or resumed claiming in a queue (queue-level facts, like the breaker's).
  "queue_paused",
  "queue_resumed",
  // Contract v1.1, team scale (docs/board.md): a task's fields edited (the changes in the
  // payload); a comment on a task (no status, no version); a queue archived or restored.
  "edited",
  "commented",
  "archived",
  "unarchived",
  // Retiring the log (docs/engine.md): whole months of events written to a file and dropped;
  // one per task whose early events went (and one per queue), naming the file and its SHA-256.
  "events_archived",
]);

/** Who may claim a queue's tasks: people (signed-in users), agents (tokens), or anyone. */
export const claimants = pgEnum("claimants", ["anyone", "people", "agents"]);

/**
 * The words a task is found by. The query side (lib/tasks/search.ts) must use this same
 * expression for the planner to use tasks_search; 'simple': no stemming, so codes, ids and
 * names in payloads match as written, and prefix queries serve search-as-you-type.
 */
export const taskSearchDocument = (title: AnyPgColumn | SQL, description: AnyPgColumn | SQL, payload: AnyPgColumn | SQL) =>
  sql`to_tsvector('simple'::regconfig, ${title} || ' ' || ${description} || ' ' || ${payload}::text)`;

/** PostgreSQL's 64-bit transaction id; the realtime replay orders by it. */
const xid8 = customType<{ data: string; driverData: string }>({
  dataType: () => "xid8",
});

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

/** Whoever acts on the board: a person, an agent (one per token), or the system itself. */
export const actors = pgTable("actors", {
  id: uuid("id").primaryKey().defaultRandom(),
  kind: actorKind("kind").notNull(),
  name: text("name").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const queues = pgTable(
  "queues",
  {
    name: text("name").primaryKey(),
    leaseSeconds: integer("lease_seconds").notNull().default(120),
    maxFailures: integer("max_failures").notNull().default(3),
    expiryThreshold: integer("expiry_threshold").notNull().default(100),
    expiryWindowSeconds: integer("expiry_window_seconds").notNull().default(300),
    breakerTrippedAt: timestamp("breaker_tripped_at", { withTimezone: true }),
    breakerReason: text("breaker_reason"),
    /** Events up to this id are ignored by the breaker's checks: a reset starts a fresh window. */
    breakerResetEventId: bigint("breaker_reset_event_id", { mode: "bigint" }).notNull().default(sql`0`),
    /** The retry backoff's base: a failure that requeues waits this × 2^(failure_count − 1). */
    retryDelaySeconds: integer("retry_delay_seconds").notNull().default(0),
    /** Claims hand out nothing while paused; owners finish what they hold. */
    paused: boolean("paused").notNull().default(false),
    pausedBy: uuid("paused_by").references(() => actors.id),
    pausedAt: timestamp("paused_at", { withTimezone: true }),
    claimants: claimants("claimants").notNull().default("anyone"),
    /** The ceiling of one attempt from its claim: heartbeats cannot carry a lease past it. */
    maxAttemptSeconds: integer("max_attempt_seconds"),
    /** What the queue is for, in a supervisor's words (the /queues page, the pickers' hints). */
    description: text("description").notNull().default(""),
    /** Archived: hidden from the pickers and refused to new work; its tasks and history stay. */
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    archivedBy: uuid("archived_by").references(() => actors.id),
    ...timestamps,
  },
  (t) => [
    check("queues_name_format", sql`${t.name} ~ '^[a-z0-9._-]{1,64}$'`),
    check("queues_lease_seconds_range", sql`${t.leaseSeconds} BETWEEN 5 AND 3600`),
    check("queues_max_failures_range", sql`${t.maxFailures} BETWEEN 1 AND 100`),
    check("queues_expiry_threshold_range", sql`${t.expiryThreshold} BETWEEN 1 AND 1000000`),
    check("queues_expiry_window_range", sql`${t.expiryWindowSeconds} BETWEEN 1 AND 86400`),
    check("queues_retry_delay_range", sql`${t.retryDelaySeconds} BETWEEN 0 AND 86400`),
    check("queues_max_attempt_seconds_range", sql`${t.maxAttemptSeconds} IS NULL OR ${t.maxAttemptSeconds} BETWEEN 60 AND 604800`),
  ],
);

export const tasks = pgTable(
  "tasks",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    queue: text("queue")
      .notNull()
      .references(() => queues.name),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    payload: jsonb("payload").notNull().default({}),
    priority: integer("priority").notNull().default(0),
    status: taskStatus("status").notNull().default("queued"),
    ownerId: uuid("owner_id").references(() => actors.id),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** The lease length of the current claim; heartbeats renew by this much. */
    leaseSeconds: integer("lease_seconds"),
    version: integer("version").notNull().default(1),
    failureCount: integer("failure_count").notNull().default(0),
    needsCheck: boolean("needs_check").notNull().default(false),
    /** True once the current attempt recorded an external side effect; cleared when the attempt ends. */
    sideEffectRecorded: boolean("side_effect_recorded").notNull().default(false),
    // The work graph (docs/engine.md). depends_on: this task's dependencies, sorted;
    // blocked_by: those not done yet, kept by the transactions that finish a dependency,
    // so "is it blocked?" is a column of the row, never a join per claim candidate.
    dependsOn: bigint("depends_on", { mode: "bigint" }).array().notNull().default(sql`'{}'::bigint[]`),
    blockedBy: bigint("blocked_by", { mode: "bigint" }).array().notNull().default(sql`'{}'::bigint[]`),
    /** Not claimable before this time (scheduled work, the retry backoff); cleared by a claim. */
    notBefore: timestamp("not_before", { withTimezone: true }),
    /** Unique per queue: a retried create with the same key finds the task it made. */
    idempotencyKey: text("idempotency_key"),
    /** When the current attempt was claimed: the attempt ceiling counts from here. */
    claimedAt: timestamp("claimed_at", { withTimezone: true }),
    /** A heartbeat of the current attempt met the ceiling: its lapse is a strike. */
    attemptLimited: boolean("attempt_limited").notNull().default(false),
    /** The current attempt's last heartbeat progress (any JSON) and when it came; null without one. */
    progress: jsonb("progress"),
    progressAt: timestamp("progress_at", { withTimezone: true }),
    /** The latest hand-off note {summary, next, artifacts, by} and when it was written. */
    handoff: jsonb("handoff"),
    handoffAt: timestamp("handoff_at", { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    // Claim-next walks these in order and stops after LIMIT rows, at any table size. Blocked
    // and scheduled tasks are not in tasks_queued_order at all; due scheduled tasks are read
    // in not_before order from tasks_scheduled, so no walk ever steps over a not-yet-due row.
    index("tasks_queued_order")
      .on(t.queue, t.priority.desc().nullsFirst(), t.createdAt, t.id)
      .where(sql`${t.status} = 'queued' AND ${t.blockedBy} = '{}'::bigint[] AND ${t.notBefore} IS NULL`),
    index("tasks_scheduled")
      .on(t.queue, t.notBefore)
      .where(sql`${t.status} = 'queued' AND ${t.blockedBy} = '{}'::bigint[] AND ${t.notBefore} IS NOT NULL`),
    // The completing transaction finds the dependents it unblocks here: only blocked tasks are in it.
    index("tasks_blocked_by").using("gin", t.blockedBy).where(sql`${t.blockedBy} <> '{}'::bigint[]`),
    // The task page's "needed by" direction.
    index("tasks_depends_on").using("gin", t.dependsOn).where(sql`${t.dependsOn} <> '{}'::bigint[]`),
    uniqueIndex("tasks_idempotency_key").on(t.queue, t.idempotencyKey).where(sql`${t.idempotencyKey} IS NOT NULL`),
    index("tasks_held_order")
      .on(t.queue, t.priority.desc().nullsFirst(), t.createdAt, t.id)
      .where(sql`${t.status} IN ('claimed', 'started')`),
    // "Has any lease in this queue lapsed?" is one probe here, however many tasks are held.
    index("tasks_held_lease")
      .on(t.queue, t.leaseUntil)
      .where(sql`${t.status} IN ('claimed', 'started')`),
    // The board's columns across all queues: one status in claim order.
    index("tasks_status_order").on(t.status, t.priority.desc().nullsFirst(), t.createdAt, t.id),
    index("tasks_owner").on(t.ownerId).where(sql`${t.ownerId} IS NOT NULL`),
    index("tasks_queue_status").on(t.queue, t.status, t.id),
    // The few attempts that met their ceiling: a claim strikes their lapse before walking the queue.
    index("tasks_attempt_limited")
      .on(t.queue, t.leaseUntil)
      .where(sql`${t.attemptLimited} AND ${t.status} IN ('claimed', 'started')`),
    check(
      "tasks_held_has_owner_and_lease",
      sql`(${t.status} IN ('claimed', 'started')) = (${t.leaseUntil} IS NOT NULL AND ${t.leaseSeconds} IS NOT NULL)
          AND (${t.status} NOT IN ('claimed', 'started') OR ${t.ownerId} IS NOT NULL)`,
    ),
    check("tasks_queued_has_no_owner", sql`${t.status} <> 'queued' OR ${t.ownerId} IS NULL`),
    // The board's search (GET /tasks?q=): one GIN index over the words of title, description
    // and payload. An expression index, not a stored column: a claim or heartbeat changes none
    // of the three, so it stays a HOT update and never recomputes the document.
    index("tasks_search").using("gin", taskSearchDocument(t.title, t.description, t.payload)),
    check("tasks_version_positive", sql`${t.version} >= 1`),
    check("tasks_failure_count_nonnegative", sql`${t.failureCount} >= 0`),
    check("tasks_dependencies_bound", sql`cardinality(${t.dependsOn}) <= 1000 AND ${t.blockedBy} <@ ${t.dependsOn}`),
  ],
);

/** Append-only: a trigger (see the hand-written migration) refuses UPDATE, DELETE and TRUNCATE. */
export const taskEvents = pgTable(
  "task_events",
  {
    // A sequence default, not an identity column: PostgreSQL 15 has no identity columns on
    // partitioned tables (17 has). The sequence keeps the ids the old table handed out
    // (migration 0012); nothing inserts an id by hand, so ids still rise within a transaction.
    id: bigint("id", { mode: "bigint" }).notNull().default(sql`nextval('task_events_id_seq')`),
    /** Null for queue-level facts (breaker_tripped, breaker_reset, settings_changed). */
    taskId: bigint("task_id", { mode: "bigint" }).references(() => tasks.id),
    queue: text("queue")
      .notNull()
      .references(() => queues.name),
    type: eventType("type").notNull(),
    actorId: uuid("actor_id")
      .notNull()
      .references(() => actors.id),
    payload: jsonb("payload").notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    txId: xid8("tx_id")
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  // Partitioned by month on created_at (migration 0012, docs/engine.md "Retiring the log"):
  // drizzle-kit knows nothing of partitions; the key must hold the partition column.
  (t) => [
    primaryKey({ name: "task_events_pkey", columns: [t.id, t.createdAt] }),
    index("task_events_task").on(t.taskId, t.id),
    // The realtime feed walks events in (transaction id, event id) order.
    index("task_events_feed").on(t.txId, t.id),
    index("task_events_queue_time").on(t.queue, t.createdAt),
    index("task_events_expiries").on(t.queue, t.createdAt).where(sql`${t.type} = 'lease_expired'`),
    // Queue-level facts are few: the breaker's and the settings' history is a short walk here.
    index("task_events_queue_facts").on(t.queue, t.createdAt).where(sql`${t.taskId} IS NULL`),
    // The fleet page (lib/fleet.ts): an agent's newest event (its last sign of life) and its
    // recent instances are a short backward walk here, whatever the log's size.
    index("task_events_actor_time").on(t.actorId, t.createdAt),
    // Its done and failed over 24 h count only those two types.
    index("task_events_actor_outcomes").on(t.actorId, t.type, t.createdAt).where(sql`${t.type} IN ('completed', 'failed')`),
    // Its lapses: lease_expired is written by the system, the lapsed owner is in the payload.
    index("task_events_lapsed_owner")
      .on(sql`(${t.payload}->>'previousOwnerId')`, t.createdAt)
      .where(sql`${t.type} = 'lease_expired'`),
  ],
);

export const userRole = pgEnum("user_role", ["staff", "supervisor"]);
// observer: read-only (dashboards, monitors); agent: the agent API; supervisor: that and more.
export const tokenRole = pgEnum("token_role", ["agent", "observer", "supervisor"]);

/** People who sign in to the board. Their role is re-read on every mutation. */
export const users = pgTable(
  "users",
  {
    actorId: uuid("actor_id")
      .primaryKey()
      .references(() => actors.id),
    email: text("email").notNull(),
    role: userRole("role").notNull(),
    /** Argon2id, encoded with its parameters. */
    passwordHash: text("password_hash").notNull(),
    disabled: boolean("disabled").notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_email_unique").on(sql`lower(${t.email})`)],
);

/** Bearer tokens: 256 random bits, shown once, stored only as a SHA-256 hash. One agent actor each. */
export const agentTokens = pgTable(
  "agent_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    actorId: uuid("actor_id")
      .notNull()
      .references(() => actors.id),
    name: text("name").notNull(),
    /** The first characters of the token, for people to tell tokens apart. */
    prefix: text("prefix").notNull(),
    /** Hex SHA-256 of the whole token; the lookup key. */
    tokenHash: text("token_hash").notNull(),
    role: tokenRole("role").notNull().default("agent"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("agent_tokens_hash_unique").on(t.tokenHash),
    // A name identifies a live token (the CLI revokes by name); revoked ones keep theirs for history.
    uniqueIndex("agent_tokens_live_name_unique").on(t.name).where(sql`${t.revokedAt} IS NULL`),
  ],
);

/**
 * The API's rate limits, one token bucket per key ("token:<id>", "auth:<address>"), shared by
 * every server instance (lib/http/rate-limit.ts). UNLOGGED (the migration says so by hand):
 * no WAL per request, and a crash that empties it only fills every bucket again.
 */
export const rateBuckets = pgTable("rate_buckets", {
  key: text("key").primaryKey(),
  tokens: doublePrecision("tokens").notNull(),
  /** Whether the last take found a whole token (the statement's answer). */
  allowed: boolean("allowed").notNull(),
  at: timestamp("at", { withTimezone: true }).notNull(),
});

/**
 * Failed sign-ins, per account (the email as typed, lowercased) and per client address:
 * the lockout of lib/auth/sign-in-lockout.ts, shared by every server instance and lifted by
 * a supervisor (docs/security.md). Rows older than the window are deleted as new ones come.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    /** "account" or "address". */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    failedAt: timestamp("failed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("sign_in_failures_key").on(t.scope, t.key, t.failedAt)],
);

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

export type Actor = typeof actors.$inferSelect;
export type User = typeof users.$inferSelect;
export type AgentToken = typeof agentTokens.$inferSelect;
export type UserRole = (typeof userRole.enumValues)[number];
export type TokenRole = (typeof tokenRole.enumValues)[number];
export type Queue = typeof queues.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type TaskEventRow = typeof taskEvents.$inferSelect;
export type TaskStatus = (typeof taskStatus.enumValues)[number];
export type EventType = (typeof eventType.enumValues)[number];
export type ActorKind = (typeof actorKind.enumValues)[number];
export type Claimants = (typeof claimants.enumValues)[number];
export * from "./schema/audit";
