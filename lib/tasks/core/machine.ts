// The task state machine, written once. Every reader takes its lists from here: the
// engine's guards and conflict explanations (lib/tasks/core/transition.ts, supervise.ts), the
// fold oracle (fold.ts), the page's actions and optimistic predictions
// (components/task/permissions.ts, mutations.ts), the live cache invalidation
// (components/realtime/invalidate.ts), the timeline, and the diagram in
// docs/state-machine.md; its events are machine-events.ts. Pure TypeScript — no drizzle, no zod — so the browser imports it.
// Each move's SQL specifics (its SET list, a guard beyond the row's) stay in its own file
// under lib/tasks; lib/tasks/core/machine.test.ts walks every move against the engine.

import type { EventType } from "./event-payloads";

/** The statuses, in the database enum's order (db/schema/enums.ts task_status; machine.test.ts compares). */
export const STATUSES = ["queued", "claimed", "started", "done", "escalated", "cancelled", "in_review", "awaiting_input"] as const;
export type TaskStatus = (typeof STATUSES)[number];

/** Held: an owner works on it under a lease, which can lapse. */
export const HELD: readonly TaskStatus[] = ["claimed", "started"];
/**
 * Parked: the owner waits for a person (a question, docs/questions.md). The lease is stopped, not
 * lapsing (lease_until is empty), the owner and the attempt kept: no sweep, claim or lapse reads it.
 */
export const PARKED: readonly TaskStatus[] = ["awaiting_input"];
/** Finished: nothing more happens to it (a comment still may). */
export const FINISHED: readonly TaskStatus[] = ["done", "cancelled"];
/** Claimable as it is; a held task is claimable too once its lease lapsed (claim's `fromLapsed`). */
export const CLAIMABLE: readonly TaskStatus[] = ["queued"];
/** Nobody holds it and it is not finished: its fields may be edited. */
export const EDITABLE: readonly TaskStatus[] = ["queued", "escalated"];

/**
 * A queued task that waits: on a dependency not yet done (`blockedBy`), or for a notBefore
 * still ahead. Nobody can claim it until then — the rule claiming/ready.ts writes in SQL
 * (a held task was ready when it was claimed, so it never waits).
 */
export function waiting(task: { status: TaskStatus; blockedBy: readonly unknown[]; notBefore: Date | string | null }, now: number): boolean {
  if (task.status !== "queued") return false;
  return task.blockedBy.length > 0 || (task.notBefore !== null && new Date(task.notBefore).getTime() > now);
}

/** Where each status stands on the board, left to right (a new status needs its place). */
const BOARD_RANK: Record<TaskStatus, number> = { queued: 0, claimed: 1, started: 2, awaiting_input: 2.5, in_review: 3, escalated: 4, done: 5, cancelled: 6 };
export const BOARD_ORDER: readonly TaskStatus[] = [...STATUSES].sort((a, b) => BOARD_RANK[a] - BOARD_RANK[b]);

/**
 * Who makes the move — the one source of who may: the operation that makes it takes its standings
 * from this (standing.ts mayMake), its endpoint and action theirs. The task's `owner`; a `supervisor`;
 * a `claimant` (whoever the queue admits); an `editor` (its creator, its last holder, or a
 * supervisor); `anyone` signed in; a `reviewer` (any worker who neither submitted the task nor
 * held an attempt of it: lib/tasks/review/review.ts decides it); a `person` (staff or supervisor,
 * or a supervisor's token: who answers a question, never its asker); or the `system` (a claim or a
 * sweep does it on its behalf).
 */
export type Who = "owner" | "supervisor" | "claimant" | "editor" | "anyone" | "reviewer" | "person" | "system";

/**
 * What the move does to the lease: `takes` (the caller becomes the owner with a fresh
 * lease), `renews` (pushed forward), `keeps` (runs on as it was), `ends` (lease and owner
 * cleared, the attempt over), `finishes` (the lease ends, the owner stays on the finished
 * task as who finished it), `parks` (the lease stops — no lapse, no renewal needed — the owner
 * kept), `resumes` (a parked owner gets a fresh lease), `none` (no lease before or after).
 */
export type LeaseEffect = "takes" | "renews" | "keeps" | "ends" | "finishes" | "parks" | "resumes" | "none";

export interface MoveRow {
  /** For sentences: "cannot {verb} it". */
  verb: string;
  who: Who;
  from: readonly TaskStatus[];
  /** Held statuses it moves from only once the lease lapsed (a claim takes over, a sweep materialises). */
  fromLapsed?: readonly TaskStatus[];
  /** The status it reaches, or `same` for a move that leaves the status as it was. */
  to: TaskStatus | "same";
  /** A second status a rule of the move may reach instead (the SQL decides it in the same UPDATE). */
  or?: { to: TaskStatus; when: string };
  lease: LeaseEffect;
  /** The owner's lease must still be valid: a lapsed lease may already be someone else's. */
  requiresLease?: true;
  /** A queued task must be ready: waiting on nothing (`waiting` below; claiming/ready.ts in SQL). */
  requiresReady?: true;
  /** Adds a version (a transition); renewals and side effects do not. */
  version: boolean;
  /** What it does to failure_count. */
  failures?: "counts" | "resets";
  /** Clears needs_check (the caller confirmed the check). */
  clearsCheck?: true;
  /** The events it writes, in order (a companion event shares its transition's version). */
  events: readonly EventType[];
  /** Facts it writes when refused (the refusal is a fact of the log too). */
  refusedWith?: readonly EventType[];
}

/**
 * One row per move. To add a move: a row here, its SQL specifics in its own file, its event
 * payloads in event-payloads.ts; machine.test.ts then walks it (docs/state-machine.md).
 */
export const MOVES = {
  create: { verb: "create", who: "anyone", from: [], to: "queued", lease: "none", version: false, events: ["created"] },
  claim: {
    verb: "claim", who: "claimant", from: CLAIMABLE, fromLapsed: HELD, to: "claimed",
    or: { to: "started", when: "with start, no check needed" },
    lease: "takes", requiresReady: true, version: true, events: ["claimed"], refusedWith: ["claim_rejected"],
  },
  start: {
    verb: "start", who: "owner", from: ["claimed"], to: "started", lease: "keeps", requiresLease: true, version: true,
    clearsCheck: true, events: ["check_confirmed", "started"],
  },
  // A heartbeat's spend that reaches the task's budget parks it instead (docs/budgets.md): a
  // transition then, with its own version, in the same UPDATE.
  renew: {
    verb: "renew the lease of", who: "owner", from: HELD, to: "same", or: { to: "awaiting_input", when: "its spend reaches the budget" },
    lease: "renews", requiresLease: true, version: false,
    // At the queue's maxRenewalsWithoutProgress the renewal is refused and the attempt fails as a
    // strike (docs/leases.md): a failed (and escalated on the last strike) written with the refusal.
    events: ["heartbeat", "budget_warning", "budget_reached"], refusedWith: ["attempt_limit_reached", "failed", "escalated"],
  },
  sideEffect: {
    verb: "record a side effect on", who: "owner", from: HELD, to: "same", lease: "keeps", requiresLease: true, version: false,
    events: ["side_effect"],
  },
  // Checkpoints (docs/checkpoints.md): how far the started attempt got, under the owner's fence.
  checkpoint: {
    verb: "record a checkpoint on", who: "owner", from: ["started"], to: "same", lease: "keeps", requiresLease: true, version: false,
    events: ["checkpointed"],
  },
  release: { verb: "release", who: "owner", from: HELD, to: "queued", lease: "ends", version: true, events: ["released"] },
  complete: {
    verb: "complete", who: "owner", from: ["started"], to: "done", or: { to: "in_review", when: "the queue's review asks for it" },
    lease: "finishes", version: true, events: ["completed", "submitted", "budget_warning"],
  },
  fail: {
    verb: "fail", who: "owner", from: HELD, to: "queued", or: { to: "escalated", when: "last strike" },
    lease: "ends", version: true, failures: "counts", events: ["failed", "escalated"],
  },
  lapse: { verb: "expire", who: "system", from: [], fromLapsed: HELD, to: "queued", lease: "ends", version: true, events: ["lease_expired"] },
  strike: {
    verb: "strike", who: "system", from: [], fromLapsed: HELD, to: "queued",
    or: { to: "escalated", when: "last strike" },
    lease: "ends", version: true, failures: "counts", events: ["lease_expired", "failed", "escalated"],
  },
  forceRelease: { verb: "release", who: "supervisor", from: HELD, to: "queued", lease: "ends", version: true, events: ["released"] },
  requeue: {
    verb: "requeue", who: "supervisor", from: ["escalated"], to: "queued", lease: "none", version: true, failures: "resets",
    events: ["requeued"],
  },
  resolve: { verb: "resolve", who: "supervisor", from: ["escalated"], to: "done", lease: "none", version: true, events: ["resolved"] },
  // A parked task's attempt ends with the cancel (docs/budgets.md): "ends" clears an owner where there is one.
  cancel: { verb: "cancel", who: "supervisor", from: ["escalated", "queued", "awaiting_input"], to: "cancelled", lease: "ends", version: true, events: ["cancelled"] },
  edit: { verb: "edit", who: "editor", from: EDITABLE, to: "same", lease: "none", version: true, events: ["edited"] },
  addDependencies: {
    verb: "add dependencies to", who: "editor", from: ["queued"], to: "same", lease: "none", version: true, events: ["dependency_added"],
  },
  removeDependency: {
    verb: "remove a dependency from", who: "editor", from: ["queued"], to: "same", lease: "none", version: true, events: ["dependency_removed"],
  },
  unblock: { verb: "unblock", who: "system", from: ["queued"], to: "same", lease: "none", version: false, events: ["unblocked"] },
  escalateDependent: { verb: "escalate", who: "system", from: ["queued"], to: "escalated", lease: "none", version: true, events: ["escalated"] },
  // Review before done (maker–checker, docs/engine.md): the submission approved, or rejected as a strike.
  approve: { verb: "approve", who: "reviewer", from: ["in_review"], to: "done", lease: "none", version: true, events: ["approved"] },
  reject: {
    verb: "reject", who: "reviewer", from: ["in_review"], to: "queued", or: { to: "escalated", when: "last strike" },
    lease: "ends", version: true, failures: "counts", events: ["rejected", "escalated"],
  },
  // Asking a person (docs/questions.md): the owner parks its lease on a question; a person's
  // answer resumes it; an unanswered question past its deadline sends the task to the inbox.
  ask: {
    verb: "ask a question on", who: "owner", from: ["started"], to: "awaiting_input", lease: "parks", requiresLease: true, version: true,
    events: ["question_asked"],
  },
  answer: { verb: "answer the question on", who: "person", from: ["awaiting_input"], to: "started", lease: "resumes", version: true, events: ["question_answered"] },
  expireQuestion: {
    verb: "escalate", who: "system", from: ["awaiting_input"], to: "escalated", lease: "ends", version: true, events: ["question_expired", "escalated"],
  },
  // Budgets (docs/budgets.md): a supervisor raises the limit of a task parked on its budget, and
  // its owner gets a fresh lease, the attempt (and so the fence) the same.
  raiseBudget: {
    verb: "raise the budget of", who: "supervisor", from: ["awaiting_input"], to: "started", lease: "resumes", version: true, events: ["budget_raised"],
  },
  // A parked task's reservations, released by a supervisor or at the hold (docs/reservations.md):
  // the task stays parked with its owner; the release is an `edited` event of `reserves`.
  releaseReservations: {
    verb: "release the reservations of", who: "supervisor", from: PARKED, to: "same", lease: "none", version: true, events: ["edited"],
  },
  // Input read before done (docs/leases.md): the holder marks others' comments read, up to one event.
  ack: { verb: "acknowledge input on", who: "owner", from: [...HELD, "awaiting_input"], to: "same", lease: "keeps", version: false, events: ["acknowledged"] },
  comment: { verb: "comment on", who: "anyone", from: STATUSES, to: "same", lease: "none", version: false, events: ["commented"] },
} as const satisfies Record<string, MoveRow>;

export type MoveName = keyof typeof MOVES;

/** Moves by the task's owner: the engine builds their guards from the row (transition.ts's ownerTransition). */
export type OwnerMove = { [K in MoveName]: (typeof MOVES)[K]["who"] extends "owner" ? K : never }[MoveName];
export type SupervisorMove = { [K in MoveName]: (typeof MOVES)[K]["who"] extends "supervisor" ? K : never }[MoveName];

/** Events a call that already took effect wrote last: a retry that finds one is a success. */
export const doneBy = (row: MoveRow): EventType[] => (row.version ? [...row.events] : []);

/** Every status the move can reach. */
export const reaches = (row: MoveRow): TaskStatus[] =>
  [...(row.to === "same" ? [...row.from, ...(row.fromLapsed ?? [])] : [row.to]), ...(row.or ? [row.or.to] : [])];

/** Every status the move can leave. */
export const leaves = (row: MoveRow): TaskStatus[] => [...new Set([...row.from, ...(row.fromLapsed ?? [])])];

