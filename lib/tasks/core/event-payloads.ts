// What each event of the log carries: one interface per event type, keyed by type in
// EventPayloads. The appenders (lib/tasks/core/events.ts's NewEvent) are checked against these,
// and the readers — fold, the timeline, the inbox, the conflict explainer — narrow by
// `type` instead of casting the payload. Pure TypeScript: the browser imports it too.
// The database keeps the list of types (db/schema/enums.ts, event_type); machine.test.ts checks
// that EVENT_TYPES (lib/tasks/core/machine.ts) names exactly those.

import type { EffectState, OpenEffectState } from "@/db/schema";
import type { TaskStatus } from "./machine";
import type { Reservation } from "./reservation";

/** Who wrote a note or did a thing, as events record them. */
export interface EventActor {
  id: string;
  name: string;
  kind: "user" | "agent" | "system";
}

/** A hand-off note as the row and the event keep it (lib/tasks/core/attempt.ts writes it). */
export interface HandoffPayload {
  summary: string;
  next: string | null;
  artifacts: string[];
  by: EventActor;
}

/** Every transition's event: the version it left and the status it reached. */
interface Moved {
  version: number;
  status: TaskStatus;
  /** The Claimboard-Instance of the caller, when it sent one. */
  instance?: string;
}

export interface CreatedPayload extends Moved {
  title: string;
  description: string;
  priority: number;
  payload: unknown;
  dependsOn: string[];
  notBefore: string | null;
  idempotencyKey?: string;
  reserves?: Reservation[];
  budget?: BudgetPayload;
}
/**
 * A claim's event. A claim with `start: true` that needed no check is one act and one event:
 * `started: true`, status `started`, one version (docs/contract.md "One act, one event"). Histories
 * written before hold a `claimed` (status `claimed`) and a `started` event instead.
 */
export interface ClaimedPayload extends Moved { leaseUntil?: string; leaseSeconds: number | null; started?: true }
export interface ClaimRejectedPayload { version: number; expectedVersion: number; ownerId: string | null; status: TaskStatus }
export type StartedPayload = Moved;
export type CheckConfirmedPayload = Moved;
export interface HeartbeatPayload extends Moved { leaseUntil?: string; progress?: unknown; presence?: true; spend?: number; spent?: number }
/** A budget's limit and unit (docs/budgets.md). */
export interface BudgetPayload { limit: number; unit: string }
/** budget_warning, budget_reached, budget_raised: the task's spent and budget after the move. */
export interface BudgetMovePayload extends Moved {
  spent: number;
  budget: BudgetPayload;
  /** budget_reached: the budget question the supervisors answer by raising the limit. */
  questionId?: string;
  /** budget_raised: by how much; and the owner's fresh lease when the task was parked on its budget. */
  add?: number;
  leaseUntil?: string;
  leaseSeconds?: number;
}
export interface SideEffectPayload extends Moved { description: string }
/** A checkpoint of the started attempt (docs/checkpoints.md): its step; the state is read with GET …/checkpoints. */
export interface CheckpointedPayload extends Moved {
  step: number;
  attempt: number;
  /** The checkpoint's row, which the task now names as its latest. */
  checkpointId: string;
}
export interface ReleasedPayload extends Moved {
  needsCheck: boolean;
  handoff?: HandoffPayload;
  /** A supervisor took it away from its holder. */
  force?: true;
  previousOwnerId?: string | null;
}
export interface LeaseExpiredPayload extends Moved {
  previousOwnerId: string | null;
  needsCheck: boolean;
  /** The system's note from the lapsed attempt's last progress. */
  handoff?: unknown;
  /** The lapse of an attempt that met its ceiling: a failure too (its `failed` follows). */
  strike?: true;
}
/**
 * A held task's lease ran out (contract v1.3): announced once per attempt, changing nothing.
 * `version` and `status` are the task's as they stay; a claim or the sweep takes it over later.
 */
export interface LapsedPayload extends Moved {
  attempt: number;
  /** When the lease ended (ISO). */
  leaseUntil: string;
  /** Who held it. */
  owner: EventActor;
}
/** The holder read others' comments up to `eventId` (docs/leases.md); no version of its own. */
export interface AcknowledgedPayload extends Moved { eventId: string }
export interface FailedPayload extends Moved {
  reason: string;
  failureCount: number;
  needsCheck: boolean;
  notBefore?: string | null;
  handoff?: HandoffPayload;
  attemptLimit?: true;
  /** A renewal refused at the queue's maxRenewalsWithoutProgress ended the attempt (reason no_progress). */
  renewalsWithoutProgress?: number;
}
export interface EscalatedPayload extends Moved {
  reason?: string;
  failureCount?: number;
  needsCheck?: boolean;
  notBefore?: string | null;
  /** The cancelled dependency that sent this task to the inbox. */
  dependency?: string;
}
/** A supervisor's decision (requeue, resolve, cancel), with their note when they gave one. */
export interface DecisionPayload extends Moved {
  reason?: string;
  /** cancelled: the task was parked on a question (or its budget), and that attempt ended with the cancel. */
  previousOwnerId?: string | null;
}
export interface CompletedPayload extends Moved { result?: unknown; spend?: number; spent?: number }
export interface AttemptLimitPayload extends Moved { ceiling: string; maxAttemptSeconds: number }
export interface DependencyAddedPayload extends Moved { added: string[]; dependsOn: string[]; blockedBy: string[] }
export interface DependencyRemovedPayload extends Moved { removed: string; dependsOn: string[]; blockedBy: string[] }
export interface UnblockedPayload extends Moved { dependencies: string[] }
/** One field's change; `from` of a large payload is left out. */
export interface FieldChange { from?: unknown; to: unknown; fromOmitted?: true }
export interface EditedPayload extends Moved {
  changes: Partial<Record<"title" | "description" | "priority" | "payload" | "queue" | "notBefore" | "reserves" | "budget", FieldChange>>;
  /** A parked task's reservations released (lib/tasks/reservations/release.ts): by whom and why. */
  reason?: string;
}
/** No version: a comment changes nothing of the task. `pending` marks the page's own placeholder. */
export interface CommentedPayload { body: string; pending?: true }
export interface EventsArchivedPayload {
  by: string;
  operator?: string;
  before: string;
  months: string[];
  total: number;
  file: string;
  /** Older facts only: the absolute path of the file (no longer written: issue 25). */
  path?: string;
  sha256: string;
  events: number;
  /** A task's fact: the row as the archived events had made it (lib/tasks/reads/fold.ts replays from it). */
  task?: Record<string, unknown>;
  /** A queue's fact: how many tasks' histories it covers. */
  tasks?: number;
}

/** The effect ledger (docs/effects.md): one effect's fact; the task's version and status as they were. */
export interface EffectPayload extends Moved {
  effectId: string;
  name: string;
  idempotencyKey: string;
  attempt: number;
  state: EffectState;
  /** effect_resolved: the state it left (intended or unknown), and what the resolver said. */
  from?: OpenEffectState;
  externalRef?: string | null;
  note?: string | null;
  target?: string | null;
  /** Recorded through v1's side-effects (not counted on the task row). */
  sideEffect?: true;
  /** effect_resolved: it was the task's last unknown effect, so the task's check is done (needsCheck cleared). */
  checked?: true;
}

/** Review before done (docs/engine.md): the submission as the row keeps it (`at` ISO). */
export interface SubmissionPayload {
  result: unknown;
  digest: string;
  by: EventActor;
  attempt: number;
  at: string;
}
/** A completion that waits for review: the submission in full, so the fold replays it. */
export interface SubmittedPayload extends Moved { submission: SubmissionPayload; spend?: number; spent?: number }
/** A reviewer's decision: the digest it bound to, and the note (a reject's note is the hand-off). */
export interface ReviewedPayload extends Moved {
  digest: string;
  note?: string;
  /** reject: the strike's count, and the hand-off written from the note. */
  failureCount?: number;
  notBefore?: string | null;
  handoff?: HandoffPayload;
}
/** Asking a person (docs/questions.md): the question, and for an answer what was said. */
export interface QuestionPayload extends Moved {
  questionId: string;
  question: string;
  kind: "agent" | "budget";
  choices?: string[];
  deadline?: string;
  /** question_answered: what the person said. */
  answer?: { text: string; choice: string | null };
  /** question_answered: the owner's fresh lease. */
  leaseUntil?: string;
  leaseSeconds?: number;
  /** question_answered: the hand-off note that carries question and answer to whoever holds the task next. */
  handoff?: HandoffPayload;
  /** question_expired: the attempt ended (its owner's) and the task is escalated; the question kept. */
  previousOwnerId?: string | null;
}

// Queue-level facts (no task).
export interface BreakerTrippedPayload { cause: "expiry_spike" | "clock_backwards"; reason: string; [detail: string]: unknown }
export type BreakerResetPayload = Record<string, never>;
export interface SettingsChangedPayload {
  changes?: Record<string, { from: unknown; to: unknown }>;
  created?: true;
  by?: string;
  settings?: Record<string, unknown>;
  [why: string]: unknown;
}
export interface QueuePausedPayload { by: string }
export interface QueueArchivedPayload { by: string; openTasks: number }
export interface ScheduleSkippedPayload {
  scheduleId: string;
  schedule: string;
  /** The occurrence (ISO) that made no task, or the latest of several missed ones. */
  occurrence: string;
  reason: "overlap" | "missed";
  /** overlap: the previous occurrence's task, still unfinished. */
  previousTaskId?: string;
  /** missed: how many occurrences passed while no instance ran. */
  missed?: number;
}

export interface EventPayloads {
  created: CreatedPayload;
  claimed: ClaimedPayload;
  claim_rejected: ClaimRejectedPayload;
  started: StartedPayload;
  check_confirmed: CheckConfirmedPayload;
  heartbeat: HeartbeatPayload;
  side_effect: SideEffectPayload;
  released: ReleasedPayload;
  lease_expired: LeaseExpiredPayload;
  failed: FailedPayload;
  escalated: EscalatedPayload;
  requeued: DecisionPayload;
  resolved: DecisionPayload;
  completed: CompletedPayload;
  cancelled: DecisionPayload;
  breaker_tripped: BreakerTrippedPayload;
  breaker_reset: BreakerResetPayload;
  settings_changed: SettingsChangedPayload;
  attempt_limit_reached: AttemptLimitPayload;
  dependency_added: DependencyAddedPayload;
  dependency_removed: DependencyRemovedPayload;
  unblocked: UnblockedPayload;
  queue_paused: QueuePausedPayload;
  queue_resumed: QueuePausedPayload;
  edited: EditedPayload;
  commented: CommentedPayload;
  archived: QueueArchivedPayload;
  unarchived: QueueArchivedPayload;
  events_archived: EventsArchivedPayload;
  schedule_skipped: ScheduleSkippedPayload;
  effect_intended: EffectPayload;
  effect_resolved: EffectPayload;
  effect_unknown: EffectPayload;
  submitted: SubmittedPayload;
  approved: ReviewedPayload;
  rejected: ReviewedPayload;
  question_asked: QuestionPayload;
  question_answered: QuestionPayload;
  question_expired: QuestionPayload;
  budget_warning: BudgetMovePayload;
  budget_reached: BudgetMovePayload;
  budget_raised: BudgetMovePayload;
  lapsed: LapsedPayload;
  checkpointed: CheckpointedPayload;
  acknowledged: AcknowledgedPayload;
}

export type EventType = keyof EventPayloads;

/** An event's type with its payload: narrowing on `type` types `payload`. */
export type TypedEvent<K extends EventType = EventType> = { [T in K]: { type: T; payload: EventPayloads[T] } }[K];

/** `event` with its payload typed by its `type`. */
export type Typed<E extends { type: string; payload: unknown }> = Omit<E, "type" | "payload"> & TypedEvent;

/**
 * The one place the reading side trusts the log: every event was appended through NewEvent,
 * whose payload the compiler checked against its type's interface. Rows read back from
 * task_events (payload: jsonb, so `unknown` to drizzle) pass through here once.
 */
export function typedEvent<E extends { type: string; payload: unknown }>(event: E): Typed<E> {
  return event as unknown as Typed<E>;
}
