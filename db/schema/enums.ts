import { pgEnum } from "drizzle-orm/pg-core";

export const taskStatus = pgEnum("task_status", [
  "queued",
  "claimed",
  "started",
  "done",
  "escalated",
  "cancelled",
  // Contract v1.2, review before done (docs/engine.md): a completion waiting for its reviewer.
  "in_review",
  // Contract v1.2, asking a person (docs/questions.md): the owner's lease is parked, the owner kept.
  "awaiting_input",
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
  // Issue 25: a dependency taken away again by someone who may edit the task.
  "dependency_removed",
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
  // Recurring work (docs/schedules.md): an occurrence that made no task (overlap: skip while the
  // previous one is unfinished; missed: skip after downtime) — a queue-level fact.
  "schedule_skipped",
  // Contract v1.2, the effect ledger (docs/effects.md): an intent recorded, resolved (applied or
  // failed), or left unknown by an attempt that ended with it open.
  "effect_intended",
  "effect_resolved",
  "effect_unknown",
  // Contract v1.2, review before done (docs/engine.md): a completion submitted for review, and
  // the reviewer's approval (done) or rejection (a strike, back to the queue with the note).
  "submitted",
  "approved",
  "rejected",
  // Contract v1.2, asking a person (docs/questions.md): a question asked, answered, or past its deadline.
  "question_asked",
  "question_answered",
  "question_expired",
  // Contract v1.2, budgets (docs/budgets.md): spend crossed 80 % of the limit; reached it (the
  // task parked on a budget question); a supervisor raised the limit (back to work).
  "budget_warning",
  "budget_reached",
  "budget_raised",
  // Contract v1.3 (docs/claiming.md "Lazy expiry, announced"): a held task's lease ran out; a fact
  // of no version, once per attempt. The takeover stays with claims and the sweep (lease_expired).
  "lapsed",
  // Contract v1.3 (docs/checkpoints.md): the holder of a started task recorded a step; no version.
  "checkpointed",
  // Contract v1.3 (docs/leases.md): the holder acknowledged others' comments up to an event id.
  "acknowledged",
]);

/** Who may claim a queue's tasks: people (signed-in users), agents (tokens), or anyone. */
export const claimants = pgEnum("claimants", ["anyone", "people", "agents"]);

/** Which completions wait for a reviewer (contract v1.2): none, those by agents, or every one. */
export const reviewPolicy = pgEnum("review_policy", ["none", "agents", "everyone"]);

/** Who may comment on a queue's tasks (issue 25): any worker, people (and supervisor tokens), or supervisors. */
export const commenters = pgEnum("commenters", ["anyone", "people", "supervisors"]);

export const userRole = pgEnum("user_role", ["staff", "supervisor"]);
// observer: read-only (dashboards, monitors); agent: the agent API; supervisor: that and more.
export const tokenRole = pgEnum("token_role", ["agent", "observer", "supervisor"]);
