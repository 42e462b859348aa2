import type { Effect } from "./effect";
import type { Reservation } from "./reservation";
import type { ActorKind, TaskStatus } from "@/db/schema";

export interface ActorRef {
  id: string;
  name: string;
  kind: ActorKind;
}

/** The latest hand-off note on a task: what the last attempt did and what comes next. */
export interface Handoff {
  summary: string;
  next: string | null;
  artifacts: string[];
  by: ActorRef;
  at: Date;
}

/** A completion waiting for review, or the one approved (contract v1.2, docs/engine.md). */
export interface Submission {
  result: unknown;
  /** SHA-256 (hex) of the canonical JSON of `result` (sorted keys): what an approval binds to. */
  digest: string;
  by: ActorRef;
  attempt: number;
  at: Date;
}

/** How far an attempt got (docs/checkpoints.md): the task carries its latest, of whichever attempt. */
export interface Checkpoint {
  step: number;
  state: unknown;
  /** The attempt that recorded it. */
  attempt: number;
  by: ActorRef;
  at: Date;
}

/** The current attempt's last heartbeat progress. */
export interface Progress {
  value: unknown;
  at: Date;
}

/** A task as every caller sees it (the task object of docs/contract.md#the-task-object; Dates serialise to ISO 8601). */
export interface Task {
  id: string;
  queue: string;
  title: string;
  description: string;
  payload: unknown;
  priority: number;
  status: TaskStatus;
  owner: ActorRef | null;
  leaseUntil: Date | null;
  version: number;
  /** The number of the current or last holding (0: never claimed); every claim takes attempt + 1. */
  attempt: number;
  /** The holder's fence for this attempt (docs/fences.md), set by the surface for the holder only; null for everyone else. */
  fence: string | null;
  failureCount: number;
  needsCheck: boolean;
  /** The work graph: every dependency, and those not done yet (docs/engine.md). */
  dependsOn: string[];
  blockedBy: string[];
  /** Not claimable before this time (scheduled, or backing off after a failure). */
  notBefore: Date | null;
  createdAt: Date;
  updatedAt: Date;
  handoff: Handoff | null;
  progress: Progress | null;
  /** The latest checkpoint, of any attempt: where a successor resumes; null without one. */
  checkpoint: Checkpoint | null;
  /** The effect ledger's open effects (intended or unknown), oldest first: the successor's checklist. */
  openEffects: Effect[];
  /** What the task reserves while it is held (lib/tasks/reservations); [] when nothing. */
  reserves: Reservation[];
  /** The completion waiting for review (in_review), or the one approved; null otherwise. */
  submission: Submission | null;
  /** A limit on what holders may spend on it, in the team's unit (docs/budgets.md); null without one. */
  budget: { limit: number; unit: string } | null;
  /** What holders reported spending on it over every attempt. */
  spent: number;
  /** For the holder, on its heartbeat, claim and refusals: others' comments not yet acknowledged (docs/leases.md). */
  unread?: Unread[];
}

/** A comment the holder has not acknowledged: its event, who wrote it, its text, when. */
export interface Unread {
  eventId: string;
  by: ActorRef;
  text: string;
  at: Date;
}

export const conflictCodes = [
  "already_claimed",
  "version_conflict",
  "not_owner",
  "lease_expired",
  "invalid_transition",
  "check_required",
  "busy",
  // The work graph (docs/engine.md).
  "not_ready",
  "dependency_cycle",
  "idempotency_conflict",
  "queue_paused",
  // The effect ledger (docs/effects.md): a completion while an effect is unknown.
  "effects_unresolved",
  // Review before done (docs/engine.md): the submission changed since the reviewer read its digest.
  "submission_changed",
] as const;
export type ConflictCode = (typeof conflictCodes)[number];

export type EngineErrorCode = ConflictCode | "attempt_limit" | "no_progress" | "unread_human_input" | "invalid_request" | "forbidden" | "self_review" | "not_found" | "unavailable" | "rate_limited";

export interface EngineError {
  code: EngineErrorCode;
  message: string;
  /** The task as it is now, where one exists. */
  task?: Task;
  /** For invalid_request, and a forbidden edit of a task's terms: the offending field, dotted. */
  field?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: EngineError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (error: EngineError): { ok: false; error: EngineError } => ({ ok: false, error });
