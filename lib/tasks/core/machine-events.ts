// The machine's events: one row per event type, beside the moves that write them
// (machine.ts). Pure TypeScript, read by the fold, the timeline and the cache invalidation.

import type { EventType } from "./event-payloads";
import { leaves, MOVES, reaches, type MoveRow, type TaskStatus } from "./machine";

export interface EventFacts {
  /** A task's history, or a queue's (breaker, settings, pause, archive). */
  of: "task" | "queue";
  /** `adds` one version (a transition of its own), `none` (a fact of no version), or it shares the version of the `companionOf` event just before it. */
  version: "adds" | "none";
  /** Completes the transition of this event just before it (same version): failed → escalated, … */
  companionOf?: EventType | readonly EventType[];
  /** Written without the task's row lock: it changes nothing of the row, not even updated_at. */
  aside?: true;
  /** Changes nothing the board counts (status, blocked): the counts stay. */
  countsStay?: true;
  /** The timeline's sentence when its payload adds nothing to say. */
  label: string;
  /** Ends an attempt, in the timeline's words. */
  outcome?: string;
}

export const EVENTS: Record<EventType, EventFacts> = {
  created: { of: "task", version: "adds", label: "created the task" },
  // With `started: true` in its payload, one event for a claim that also started: "claimed and started it".
  claimed: { of: "task", version: "adds", label: "claimed it" },
  claim_rejected: { of: "task", version: "none", aside: true, countsStay: true, label: "tried to claim it — too late" },
  started: { of: "task", version: "adds", companionOf: "check_confirmed", label: "started work" },
  check_confirmed: { of: "task", version: "adds", countsStay: true, label: "confirmed the check of earlier side effects" },
  heartbeat: { of: "task", version: "none", countsStay: true, label: "renewed the lease" },
  side_effect: { of: "task", version: "none", countsStay: true, label: "recorded a side effect" },
  released: { of: "task", version: "adds", label: "released it back to the queue", outcome: "released" },
  lease_expired: { of: "task", version: "adds", label: "noted the lease had lapsed; back to the queue", outcome: "lease lapsed" },
  // A lapse of an attempt that met its ceiling is a strike: lease_expired and failed, one version.
  failed: { of: "task", version: "adds", companionOf: "lease_expired", label: "reported a failure", outcome: "failed" },
  // An escalation on its own (a cancelled dependency) can follow a failure that requeued: a transition of its own.
  // A reject's last strike escalates in the rejection's transition too.
  escalated: { of: "task", version: "adds", companionOf: ["failed", "rejected"], label: "escalated it to the supervisors' inbox", outcome: "escalated" },
  requeued: { of: "task", version: "adds", label: "requeued it with a clean slate", outcome: "requeued" },
  resolved: { of: "task", version: "adds", label: "resolved it by hand", outcome: "resolved" },
  completed: { of: "task", version: "adds", label: "completed it", outcome: "completed" },
  cancelled: { of: "task", version: "adds", label: "cancelled it", outcome: "cancelled" },
  breaker_tripped: { of: "queue", version: "none", label: "breaker tripped" },
  breaker_reset: { of: "queue", version: "none", label: "breaker reset" },
  settings_changed: { of: "queue", version: "none", label: "settings changed" },
  attempt_limit_reached: { of: "task", version: "none", label: "reached the queue's attempt ceiling: the lease was not extended" },
  dependency_added: { of: "task", version: "adds", countsStay: true, label: "dependency added" },
  dependency_removed: { of: "task", version: "adds", countsStay: true, label: "dependency removed" },
  unblocked: { of: "task", version: "none", label: "unblocked" },
  queue_paused: { of: "queue", version: "none", label: "queue paused" },
  queue_resumed: { of: "queue", version: "none", label: "queue resumed" },
  edited: { of: "task", version: "adds", countsStay: true, label: "edited the task" },
  commented: { of: "task", version: "none", aside: true, countsStay: true, label: "commented" },
  archived: { of: "queue", version: "none", label: "archived" },
  unarchived: { of: "queue", version: "none", label: "unarchived" },
  // Only the last one of a history is replayed from: it holds the row as the archived events made it.
  events_archived: { of: "task", version: "none", aside: true, label: "events archived" },
  schedule_skipped: { of: "queue", version: "none", label: "a scheduled occurrence made no task" },
  // The effect ledger: facts of no version (the ledger's own states, lib/tasks/effects/effects.ts).
  effect_intended: { of: "task", version: "none", countsStay: true, label: "recorded an intent to act outside the board" },
  effect_resolved: { of: "task", version: "none", countsStay: true, label: "resolved an effect" },
  effect_unknown: { of: "task", version: "none", countsStay: true, label: "left an effect unknown: its attempt ended with it open" },
  // Review before done (docs/engine.md): a completion waiting for its reviewer, and the decision.
  submitted: { of: "task", version: "adds", label: "submitted it for review", outcome: "submitted for review" },
  approved: { of: "task", version: "adds", label: "approved the submission" },
  rejected: { of: "task", version: "adds", label: "rejected the submission: back to the queue" },
  // Asking a person (docs/questions.md). An expiry is a fact of no version: its escalated follows with the transition's.
  question_asked: { of: "task", version: "adds", label: "asked a person a question; the lease is parked" },
  question_answered: { of: "task", version: "adds", label: "answered the question; back to work with a fresh lease" },
  question_expired: { of: "task", version: "none", label: "noted the question went unanswered past its deadline" },
  // Budgets (docs/budgets.md): a warning is a fact of no version; reaching the limit parks the task
  // (a transition of its own, written with the heartbeat that spent it), a raise resumes it.
  budget_warning: { of: "task", version: "none", label: "spent 80 % of the budget" },
  budget_reached: { of: "task", version: "adds", label: "reached the budget: the lease is parked until a supervisor raises it" },
  budget_raised: { of: "task", version: "adds", label: "raised the budget" },
  // A lapse announced (docs/claiming.md "Lazy expiry, announced"): written by a server's lapse
  // clock beside no state change and without the row lock; the board's counts refetch for it
  // (the lapsed count). The takeover is still a claim's or the sweep's lease_expired.
  lapsed: { of: "task", version: "none", aside: true, label: "lease lapsed" },
  // Checkpoints (docs/checkpoints.md): a fact of no version, under the row lock (the task names its latest).
  checkpointed: { of: "task", version: "none", countsStay: true, label: "recorded a checkpoint" },
  // Input read before done (docs/leases.md): the holder acknowledged others' comments.
  acknowledged: { of: "task", version: "none", countsStay: true, label: "acknowledged the comments" },
};

/** Whether `type` completes the transition of a `previous` event (machine-events' companionOf). */
export const companionOf = (type: EventType, previous: EventType): boolean => {
  const of = EVENTS[type].companionOf;
  return of === undefined ? false : typeof of === "string" ? of === previous : of.includes(previous);
};

export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];

/** A type name from outside (a live event's, a URL's) that the machine knows. */
export const isEventType = (type: string): type is EventType => Object.hasOwn(EVENTS, type);

/**
 * A claim that started the task in the same act: one `claimed` event with `started: true`
 * (docs/contract.md "One act, one event"). Readers treat it as both facts, a claim and a start;
 * histories written before hold the pair `claimed`, `started` instead.
 */
export const claimStarted = (event: { type: string; payload?: unknown }): boolean =>
  event.type === "claimed" && typeof event.payload === "object" && event.payload !== null &&
  (event.payload as { started?: unknown }).started === true;

/**
 * Types an event answers to beside its own: a webhook subscription (or a type filter) naming
 * `as` also matches an event of `type` — one whose payload has `flag` true, when it names one.
 * The outbox's SQL (lib/tasks/core/events.ts) is built from this list: the one place it is decided.
 */
export const ALSO_ANSWERS: readonly { type: EventType; flag?: string; as: EventType }[] = [
  { type: "claimed", flag: "started", as: "started" },
  // The task reached done by review: what a team watching completions means.
  { type: "approved", as: "completed" },
];

const ROWS: MoveRow[] = Object.values(MOVES);

/**
 * The statuses an event can move a task between: those the moves that write it leave and
 * reach. A fact written aside changes no list; an event no move writes may change anything.
 */
export function touchedBy(type: EventType, all: readonly TaskStatus[]): TaskStatus[] {
  const writers = ROWS.filter((row) => row.events.includes(type) || row.refusedWith?.includes(type));
  if (writers.length === 0) return [...all];
  if (EVENTS[type].aside) return [];
  const statuses = new Set(writers.flatMap((row) => [...leaves(row), ...reaches(row)]));
  return all.filter((status) => statuses.has(status));
}
