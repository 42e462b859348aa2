import { sql, type SQL } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  uniqueIndex,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { actorKind, claimants, commenters, reviewPolicy, taskStatus } from "./enums";

/**
 * The words of task_search as the search's GIN index reads them. The query side
 * (lib/tasks/reads/search.ts) uses this same expression, so the planner can use
 * task_search_words; and because it is an expression, a scan without the index would have
 * to compute it row by row, which the planner counts, so it walks the index. (A stored
 * tsvector column, tried first, was cheap to scan by the planner's costs and read whole:
 * 19 ms a search at 100,000 tasks against 0.1 ms.) 'simple': no stemming, so codes, ids
 * and names in payloads match as written, and prefix queries serve search-as-you-type.
 */
export const taskSearchDocument = (words: AnyPgColumn | SQL) => sql`to_tsvector('simple'::regconfig, ${words})`;

/**
 * The board's search (GET /tasks?q=): a task's words in a row of their own. On the task row,
 * as an expression index, every claim, start, heartbeat and completion (none of them HOT:
 * other indexes name status and lease) recomputed the document and inserted it into the GIN
 * index again: the largest part of the loop's WAL with real content (CHANGELOG.md
 * "Issue 21, third step"). Here `words` is the SQL function task_search_words(title,
 * description, payload), written when a task is created and when its title, description or
 * payload change, by the triggers tasks_search_added and tasks_search_edited (migration
 * 0025): no writer of those columns can leave it stale.
 */
export const taskSearch = pgTable(
  "task_search",
  {
    taskId: bigint("task_id", { mode: "bigint" }).primaryKey(),
    words: text("words").notNull(),
  },
  (t) => [index("task_search_words").using("gin", taskSearchDocument(t.words))],
);

export const timestamps = {
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
    commenters: commenters("commenters").notNull().default("anyone"),
    /** The ceiling of one attempt from its claim: heartbeats cannot carry a lease past it. */
    maxAttemptSeconds: integer("max_attempt_seconds"),
    /** After a lease lapses, nobody may claim the task until the lapse + this (downstreams that cannot check a fence). */
    lockDelaySeconds: integer("lock_delay_seconds").notNull().default(0),
    /** A person's lease is renewed while they were active in the app within this (0: the lease alone; migration 0037). */
    personIdleSeconds: integer("person_idle_seconds").notNull().default(1800),
    /** After a person's lease lapses, agents may claim the task only this much later (readiness person_grace). */
    personGraceSeconds: integer("person_grace_seconds").notNull().default(300),
    /** Renewals in a row without progress an attempt may make; the next is refused as no_progress (0: off; migration 0039). */
    maxRenewalsWithoutProgress: integer("max_renewals_without_progress").notNull().default(0),
    /** Which completions become in_review instead of done (contract v1.2, docs/engine.md). */
    review: reviewPolicy("review").notNull().default("none"),
    /** How long a question to a person waits for its answer before the task goes to the inbox (docs/questions.md). */
    questionTimeoutSeconds: integer("question_timeout_seconds").notNull().default(86400),
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
    check("queues_lock_delay_seconds_range", sql`${t.lockDelaySeconds} BETWEEN 0 AND 3600`),
    check("queues_person_idle_seconds_range", sql`${t.personIdleSeconds} BETWEEN 0 AND 86400`),
    check("queues_person_grace_seconds_range", sql`${t.personGraceSeconds} BETWEEN 0 AND 3600`),
    check("queues_question_timeout_seconds_range", sql`${t.questionTimeoutSeconds} BETWEEN 60 AND 604800`),
    check("queues_max_renewals_without_progress_range", sql`${t.maxRenewalsWithoutProgress} BETWEEN 0 AND 10000`),
    check("queues_max_attempt_seconds_range", sql`${t.maxAttemptSeconds} IS NULL OR ${t.maxAttemptSeconds} BETWEEN 60 AND 604800`),
  ],
);

/** What a person writes on a task: written by a create and an edit, never by the loop. */
const contentColumns = () => ({
  title: text("title").notNull(),
  description: text("description").notNull().default(""),
  payload: jsonb("payload").notNull().default({}),
});

/** The task's state: every column but its words. A function, so each table builds its own columns. */
const stateColumns = () => ({
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    queue: text("queue")
      .notNull()
      .references(() => queues.name),
    priority: integer("priority").notNull().default(0),
    status: taskStatus("status").notNull().default("queued"),
    // No foreign key (migration 0017): the owner is the authenticated caller the claim just
    // resolved, and a key check on every claim would KEY SHARE-lock the agent's actor row that
    // all its workers share.
    ownerId: uuid("owner_id"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** The lease length of the current claim; heartbeats renew by this much. */
    leaseSeconds: integer("lease_seconds"),
    version: integer("version").notNull().default(1),
    /** The number of the current or last holding: every claim takes attempt + 1, never reused (the fence names it). */
    attempt: integer("attempt").notNull().default(0),
    failureCount: integer("failure_count").notNull().default(0),
    needsCheck: boolean("needs_check").notNull().default(false),
    /** True once the current attempt recorded an external side effect; cleared when the attempt ends. */
    sideEffectRecorded: boolean("side_effect_recorded").notNull().default(false),
    /** The effect ledger's counts (db/schema/effects.ts): open intents of the current attempt, and unknown effects. */
    intendedEffects: integer("intended_effects").notNull().default(0),
    unknownEffects: integer("unknown_effects").notNull().default(0),
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
    /** What the task reserves while held, [{resource, mode}] (lib/tasks/reservations); null when nothing. */
    reserves: jsonb("reserves").$type<{ resource: string; mode: "exclusive" | "shared" }[]>(),
    /** The completion waiting for review (or the one approved): {result, digest, by, attempt, at}; null otherwise. */
    submission: jsonb("submission"),
    /** The budget (docs/budgets.md): a limit in a unit of the team's choosing; null without one. */
    budgetLimit: numeric("budget_limit", { mode: "number" }),
    budgetUnit: text("budget_unit"),
    /** What holders reported spending on it, over every attempt (heartbeat and complete `spend`). */
    spent: numeric("spent", { mode: "number" }).notNull().default(0),
    ...timestamps,
    /** The latest checkpoint of any attempt (task_checkpoints.id, migration 0038); null without one. */
    checkpointId: bigint("checkpoint_id", { mode: "bigint" }),
});

/**
 * The row the loop writes (migration 0027; docs/data-model.md): a task's state, every column of
 * the task but its words. Named by every write of lib/tasks; read through the view `tasks`.
 * Its index and constraint names are those of the table it was, renamed.
 */
export const taskState = pgTable(
  "task_state",
  {
    ...stateColumns(),
    /**
     * Bumped by a statement that writes the task's set rows (task_queued, task_held) itself, the
     * claim's and the completion's: the set triggers run only where it did not change
     * (migration 0030). Not a fact of the task; not in the view `tasks`.
     */
    setsMark: integer("sets_mark").notNull().default(0),
    /**
     * updated_at while the task is done, null otherwise (migration 0031): what tasks_spent_done
     * keys on, so a heartbeat, which changes updated_at, changes no indexed value and can be
     * HOT. Not in the view `tasks`.
     */
    doneAt: timestamp("done_at", { withTimezone: true }).generatedAlwaysAs(sql`CASE WHEN status = 'done' THEN updated_at END`),
    /**
     * The status of a task that reserves, null for one that does not (migration 0032): what
     * tasks_reserving keys on, so that no index names the status of a task that reserves
     * nothing, and its claim could be HOT. Not in the view `tasks`.
     */
    reservingStatus: taskStatus("reserving_status").generatedAlwaysAs(sql`CASE WHEN reserves IS NOT NULL THEN status END`),
    /**
     * The owner of a task that is neither claimed nor started, null while it is queued or held
     * (migration 0033): what tasks_settled_owner keys on, so a claim changes no indexed value
     * of the owner. A held task's owner is found in task_held (task_held_owner). Not in
     * the view `tasks`.
     */
    settledOwner: uuid("settled_owner").generatedAlwaysAs(sql`CASE WHEN status NOT IN ('claimed', 'started') THEN owner_id END`),
    /** Renewals in a row of the current attempt that brought no new progress (migration 0039; docs/leases.md). Not in the view `tasks`. */
    renewalsWithoutProgress: integer("renewals_without_progress").notNull().default(0),
    /** The earliest comment event the holder has not acknowledged; null when nothing is unread (docs/leases.md). Not in the view `tasks`. */
    unreadFrom: bigint("unread_from", { mode: "bigint" }),
  },
  (t) => [
    // The completing transaction finds the dependents it unblocks here: only blocked tasks are in it.
    index("tasks_blocked_by").using("gin", t.blockedBy).where(sql`${t.blockedBy} <> '{}'::bigint[]`),
    // The task page's "needed by" direction.
    index("tasks_depends_on").using("gin", t.dependsOn).where(sql`${t.dependsOn} <> '{}'::bigint[]`),
    uniqueIndex("tasks_idempotency_key").on(t.queue, t.idempotencyKey).where(sql`${t.idempotencyKey} IS NOT NULL`),
    // The board's columns across all queues: one status in claim order.
    index("tasks_status_order").on(t.status, t.priority.desc().nullsFirst(), t.createdAt, t.id),
    // Only tasks that reserve are in it: what is held, and whether a queue has such tasks at all.
    index("tasks_reserving").on(t.reservingStatus, t.queue).where(sql`${t.reservingStatus} IS NOT NULL`),
    // Insights' spend per done task (lib/insights/spend.ts): only done tasks that reported spend are in it.
    index("tasks_spent_done").on(t.queue, t.doneAt).where(sql`${t.doneAt} IS NOT NULL AND ${t.spent} > 0`),
    // "Whose is it?" for tasks no longer held; task_held_owner answers it for held ones.
    index("tasks_settled_owner").on(t.settledOwner).where(sql`${t.settledOwner} IS NOT NULL`),
    index("tasks_queue_status").on(t.queue, t.status, t.id),
    check(
      "tasks_held_has_owner_and_lease",
      sql`(${t.status} IN ('claimed', 'started')) = (${t.leaseUntil} IS NOT NULL AND ${t.leaseSeconds} IS NOT NULL)
          AND (${t.status} NOT IN ('claimed', 'started') OR ${t.ownerId} IS NOT NULL)`,
    ),
    check("tasks_queued_has_no_owner", sql`${t.status} <> 'queued' OR ${t.ownerId} IS NULL`),
    check("tasks_version_positive", sql`${t.version} >= 1`),
    check("tasks_attempt_nonnegative", sql`${t.attempt} >= 0`),
    check("tasks_failure_count_nonnegative", sql`${t.failureCount} >= 0`),
    check("tasks_budget", sql`(${t.budgetLimit} IS NULL) = (${t.budgetUnit} IS NULL) AND (${t.budgetLimit} IS NULL OR ${t.budgetLimit} > 0) AND ${t.spent} >= 0`),
    check("tasks_dependencies_bound", sql`cardinality(${t.dependsOn}) <= 1000 AND ${t.blockedBy} <@ ${t.dependsOn}`),
  ],
);

/**
 * The held set (migration 0028, design q's second step): a row for each claimed or started
 * task, with the columns the walks of held tasks read. The claim and the completion write
 * their rows in their own statement (migration 0030: they bump sets_mark, so the trigger
 * leaves them); the trigger task_held_follows on task_state writes them for every other
 * writer, so the set is exact whoever writes; task_state stays the
 * record, and a walk that locks a task rechecks its status and lease there (EvalPlanQual
 * rechecks the locked row, not this one). Its indexes left task_state, where every claim,
 * start, heartbeat and completion had to insert into them.
 */
export const taskHeld = pgTable(
  "task_held",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey(),
    queue: text("queue").notNull(),
    priority: integer("priority").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /** The holder (migration 0033): task_state's owner index names only settled owners. */
    ownerId: uuid("owner_id").notNull(),
  },
  (t) => [
    // The claim's walk of lapsed leases, in claim order, stopping at its limit (the lease is read from task_lease).
    index("task_held_order").on(t.queue, t.priority.desc().nullsFirst(), t.createdAt, t.id),
    // The tasks one actor holds: presence renewal, "mine", the fleet.
    index("task_held_owner").on(t.ownerId),
  ],
);

/**
 * The held tasks' leases (migration 0034, design q step 4a piece 3b): a row for each row of
 * task_held, with what a heartbeat changes. A heartbeat's update of it is never HOT (it moves
 * the key of task_lease_until), so its indexes are only those that read the lease, and none
 * that task_held gains for a claim's or a board's read costs a heartbeat anything. Written
 * beside task_held, by the claim and the completion in their own statements and by the
 * trigger task_held_follows for every other writer; task_state's lease_until stays the record.
 */
export const taskLease = pgTable(
  "task_lease",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey(),
    queue: text("queue").notNull(),
    leaseUntil: timestamp("lease_until", { withTimezone: true }).notNull(),
    attemptLimited: boolean("attempt_limited").notNull(),
    /** The attempt whose lapse was announced (`lapsed`, migration 0036): the guard of "once per attempt". */
    announcedAttempt: integer("announced_attempt"),
  },
  (t) => [
    // "Has any lease in this queue lapsed?" is one probe here, however many tasks are held.
    index("task_lease_until").on(t.queue, t.leaseUntil),
    // The few attempts that met their ceiling: a claim strikes their lapse before walking the queue.
    index("task_lease_attempt_limited").on(t.queue, t.leaseUntil).where(sql`${t.attemptLimited}`),
  ],
);

/**
 * The claimable set (migration 0029, design q's third step): a row for each queued task that
 * waits on no dependency, ready now or at its not_before. The claim deletes its rows in its
 * own statement (migration 0030); the triggers task_queued_added and task_queued_follows on
 * task_state write them for every other writer; the claim walks it and locks and
 * rechecks on task_state, as the held walks do with task_held.
 */
export const taskQueued = pgTable(
  "task_queued",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey(),
    queue: text("queue").notNull(),
    priority: integer("priority").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    notBefore: timestamp("not_before", { withTimezone: true }),
  },
  (t) => [
    // Claim-next walks these in order and stops after LIMIT rows, at any table size. Blocked
    // tasks are not in the set at all; due scheduled tasks are read in not_before order from
    // task_queued_scheduled, so no walk ever steps over a not-yet-due row.
    index("task_queued_order").on(t.queue, t.priority.desc().nullsFirst(), t.createdAt, t.id).where(sql`${t.notBefore} IS NULL`),
    index("task_queued_scheduled").on(t.queue, t.notBefore).where(sql`${t.notBefore} IS NOT NULL`),
  ],
);

/** A task's words (migration 0027): its title, description and payload, one row a task. */
export const taskContent = pgTable("task_content", {
  id: bigint("id", { mode: "bigint" }).primaryKey().references(() => taskState.id),
  ...contentColumns(),
});

/**
 * The task as every reader knows it: the VIEW `tasks`, task_state LEFT JOIN task_content
 * (migration 0027). Declared as a table so reads keep drizzle's typed selects; nothing in
 * lib/ writes through it (hand-written SQL may: the view's INSTEAD OF triggers write both
 * tables). drizzle-kit cannot tell it from a table: `db:generate` would propose to create
 * it; migrations here are written by hand since 0027.
 */
export const tasks = pgTable("tasks", { ...stateColumns(), ...contentColumns() });
