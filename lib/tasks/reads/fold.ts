import { asc, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { taskEvents, type TaskEventRow, type TaskRow } from "@/db/schema";
import { typedEvent, type EventType, type Typed } from "../core/event-payloads";
import type { Reservation } from "../core/reservation";
import { companionOf, EVENTS } from "../core/machine-events";

/**
 * The part of a task row that its events determine. blocked_by is not: it shrinks when
 * other tasks finish (their events, not this task's); its invariant — the dependencies not
 * done — is checked against the graph instead (lib/tasks/authoring/graph.test.ts).
 */
export type FoldedTask = Omit<TaskRow, "id" | "blockedBy">;

// Which events add a version, which are written aside (no row lock, not even updated_at),
// and which complete the transition of the event before them: the machine's event rows
// (lib/tasks/core/machine-events.ts).

type FoldEvent = Pick<TaskEventRow, "type" | "actorId" | "payload" | "createdAt" | "queue">;

/**
 * Replays a task's events, oldest first, into the state of its row. It re-derives every
 * field from the meaning of each event — the version included, one per transition — so
 * a row that disagrees with its folded history exposes a transition that wrote the
 * wrong thing or forgot its event.
 */
export function foldEvents(rows: FoldEvent[]): FoldedTask {
  const events = rows.map(typedEvent);
  // A history whose beginning was archived (`events archive`) replays from the archive's
  // fact: it holds the row as it was then, which every event before it (by id) had made.
  let checkpoint = -1;
  for (let i = events.length - 1; i >= 0 && checkpoint < 0; i--) if (events[i]!.type === "events_archived") checkpoint = i;
  const fact = events[checkpoint];
  if (fact?.type === "events_archived") return replay(fromCheckpoint(fact.payload.task), events.slice(checkpoint + 1), fact.type, undefined);
  const [first, ...rest] = events;
  if (!first || first.type !== "created") throw new Error("a task's history starts with its created event");
  const p = first.payload;
  const task: FoldedTask = {
    queue: first.queue,
    title: p.title,
    description: p.description,
    payload: p.payload,
    priority: p.priority,
    status: "queued",
    ownerId: null,
    leaseUntil: null,
    leaseSeconds: null,
    version: 1,
    attempt: 0,
    failureCount: 0,
    needsCheck: false,
    sideEffectRecorded: false,
    intendedEffects: 0,
    unknownEffects: 0,
    dependsOn: (p.dependsOn ?? []).map((id) => BigInt(id)),
    notBefore: p.notBefore ? new Date(p.notBefore) : null,
    idempotencyKey: p.idempotencyKey ?? null,
    claimedAt: null,
    attemptLimited: false,
    progress: null,
    progressAt: null,
    handoff: null,
    handoffAt: null,
    reserves: p.reserves ?? null,
    submission: null,
    budgetLimit: p.budget?.limit ?? null,
    budgetUnit: p.budget?.unit ?? null,
    spent: 0,
    checkpointId: null,
    createdAt: first.createdAt,
    updatedAt: first.createdAt,
  };

  return replay(task, rest, first.type, p.version);
}

/** An instant an event recorded (an Invalid Date where it recorded none, as `new Date(undefined)`). */
const dateOf = (iso: string | undefined) => new Date(iso ?? Number.NaN);

const DATES = ["leaseUntil", "notBefore", "claimedAt", "progressAt", "handoffAt", "createdAt", "updatedAt"] as const;

/** The row as the archive's fact keeps it (JSON: dates as ISO strings, ids as strings). */
export function taskCheckpoint(row: TaskRow): Record<string, unknown> {
  const { id: _id, blockedBy: _blockedBy, ...state } = row;
  return { ...state, dependsOn: state.dependsOn.map(String), checkpointId: state.checkpointId?.toString() ?? null };
}

function fromCheckpoint(value: unknown): FoldedTask {
  if (!value || typeof value !== "object") throw new Error("an events_archived fact without the task's state");
  const state = { ...(value as Record<string, unknown>) };
  for (const key of DATES) state[key] = state[key] == null ? null : new Date(state[key] as string);
  state.dependsOn = ((state.dependsOn as string[] | undefined) ?? []).map((id) => BigInt(id));
  state.reserves ??= null; // a fact archived before reservations existed
  state.budgetLimit ??= null; // …or before budgets
  state.budgetUnit ??= null;
  state.spent ??= 0;
  state.checkpointId = state.checkpointId == null ? null : BigInt(state.checkpointId as string); // …or before checkpoints
  return state as unknown as FoldedTask;
}

/** Applies events (oldest first) to a task's state; `previous*` are of the event before them. */
function replay(
  task: FoldedTask,
  rest: Typed<FoldEvent>[],
  previousTypeAtStart: EventType,
  previousVersionAtStart: unknown,
): FoldedTask {
  const endAttempt = () => {
    task.status = "queued";
    task.ownerId = null;
    task.leaseUntil = null;
    task.leaseSeconds = null;
    task.needsCheck = task.needsCheck || task.sideEffectRecorded;
    task.sideEffectRecorded = false;
    task.unknownEffects += task.intendedEffects; // the ledger: open intents of an ended attempt are unknown
    task.intendedEffects = 0;
    task.claimedAt = null;
    task.attemptLimited = false;
    task.progress = null;
    task.progressAt = null;
  };
  const handoff = (event: { createdAt: Date }, payload: { handoff?: unknown }) => {
    if (payload.handoff === undefined) return;
    task.handoff = payload.handoff;
    task.handoffAt = event.createdAt;
  };

  let previousType = previousTypeAtStart;
  let previousVersion = previousVersionAtStart;
  for (const event of rest) {
    const facts = EVENTS[event.type];
    const version = "version" in event.payload ? event.payload.version : undefined;
    // A companion shares its transition's version; an escalation on its own (a cancelled
    // dependency) can follow a failure that requeued, and is a transition of its own.
    const companion = companionOf(event.type, previousType) && version === previousVersion;
    if (facts.version === "adds" && !companion) task.version += 1;
    if (!facts.aside) task.updatedAt = event.createdAt;
    // A losing claim or a comment appends without the row lock, so its id may fall between the
    // two rows of another transition (check_confirmed, started): it must not break that pair apart.
    if (!facts.aside) {
      previousType = event.type;
      previousVersion = version;
    }

    switch (event.type) {
      case "claimed":
        // One act, one event: a claim with start writes `started: true` here; histories written
        // before hold a `started` event after it instead (the case below). Both replay.
        task.status = event.payload.started ? "started" : "claimed";
        task.ownerId = event.actorId;
        task.attempt += 1;
        task.leaseUntil = dateOf(event.payload.leaseUntil);
        task.leaseSeconds = event.payload.leaseSeconds;
        task.sideEffectRecorded = false;
        task.notBefore = null;
        task.claimedAt = event.createdAt;
        task.attemptLimited = false;
        task.progress = null;
        task.progressAt = null;
        break;
      case "started":
        task.status = "started";
        break;
      case "check_confirmed":
        task.needsCheck = false;
        break;
      case "heartbeat":
        task.leaseUntil = dateOf(event.payload.leaseUntil);
        if ("progress" in event.payload) {
          task.progress = event.payload.progress;
          task.progressAt = event.createdAt;
        }
        if (event.payload.spent !== undefined) task.spent = event.payload.spent;
        break;
      // Budgets (docs/budgets.md): a warning changes nothing; reaching the limit parks the lease; a raise resumes it.
      case "budget_warning":
        break;
      case "budget_reached":
        task.status = "awaiting_input";
        task.leaseUntil = null;
        break;
      case "budget_raised":
        task.budgetLimit = event.payload.budget.limit;
        task.status = "started";
        task.leaseUntil = dateOf(event.payload.leaseUntil);
        task.leaseSeconds = event.payload.leaseSeconds ?? task.leaseSeconds;
        break;
      case "attempt_limit_reached":
        task.attemptLimited = true;
        break;
      case "side_effect":
        task.sideEffectRecorded = true;
        break;
      // The task names its latest checkpoint, of whichever attempt: a claim or an ended attempt keeps it.
      case "checkpointed":
        task.checkpointId = BigInt(event.payload.checkpointId);
        break;
      case "effect_intended":
        task.sideEffectRecorded = true;
        task.intendedEffects += 1;
        break;
      case "effect_resolved":
        if (event.payload.checked) task.needsCheck = false; // the last unknown effect resolved: the check is done
        if (event.payload.sideEffect) break; // v1's side effects are not counted on the row
        if (event.payload.from === "unknown") task.unknownEffects -= 1;
        else task.intendedEffects -= 1;
        break;
      case "effect_unknown":
        break;
      case "released":
      case "lease_expired":
        endAttempt();
        handoff(event, event.payload);
        break;
      case "failed":
        endAttempt();
        handoff(event, event.payload);
        task.failureCount += 1;
        task.notBefore = event.payload.notBefore ? new Date(event.payload.notBefore) : null;
        break;
      case "escalated":
        task.status = "escalated";
        break;
      case "requeued":
        task.status = "queued";
        task.failureCount = 0;
        task.notBefore = null;
        break;
      case "dependency_added":
      case "dependency_removed":
        task.dependsOn = event.payload.dependsOn.map((id) => BigInt(id));
        break;
      case "unblocked":
        break;
      case "resolved":
        task.status = "done";
        break;
      case "completed":
        if (event.payload.spent !== undefined) task.spent = event.payload.spent;
        task.status = "done";
        task.leaseUntil = null;
        task.leaseSeconds = null;
        task.sideEffectRecorded = false;
        task.intendedEffects = 0;
        break;
      case "submitted":
        if (event.payload.spent !== undefined) task.spent = event.payload.spent;
        task.status = "in_review";
        task.leaseUntil = null;
        task.leaseSeconds = null;
        task.sideEffectRecorded = false;
        task.intendedEffects = 0;
        task.submission = event.payload.submission;
        break;
      case "approved":
        task.status = "done";
        break;
      case "rejected":
        endAttempt();
        handoff(event, event.payload);
        task.failureCount += 1;
        task.notBefore = event.payload.notBefore ? new Date(event.payload.notBefore) : null;
        task.submission = null;
        break;
      case "cancelled":
        endAttempt(); // clears what a parked attempt held (nothing for a queued or escalated task)
        task.status = "cancelled";
        break;
      case "edited": {
        const changes = event.payload.changes ?? {};
        if (changes.title) task.title = changes.title.to as string;
        if (changes.description) task.description = changes.description.to as string;
        if (changes.priority) task.priority = changes.priority.to as number;
        if (changes.payload) task.payload = changes.payload.to;
        if (changes.queue) task.queue = changes.queue.to as string;
        if (changes.notBefore) task.notBefore = changes.notBefore.to ? new Date(changes.notBefore.to as string) : null;
        if (changes.budget) {
          const to = changes.budget.to as { limit: number; unit: string } | null;
          task.budgetLimit = to?.limit ?? null;
          task.budgetUnit = to?.unit ?? null;
        }
        if (changes.reserves) task.reserves = (changes.reserves.to as Reservation[]).length > 0 ? (changes.reserves.to as Reservation[]) : null;
        break;
      }
      // Asking a person (docs/questions.md): the lease parks, resumes fresh, or the attempt ends at the deadline.
      case "question_asked":
        task.status = "awaiting_input";
        task.leaseUntil = null;
        break;
      case "question_answered":
        task.status = "started";
        task.leaseUntil = dateOf(event.payload.leaseUntil);
        task.leaseSeconds = event.payload.leaseSeconds ?? task.leaseSeconds;
        task.progress = null;
        task.progressAt = null;
        handoff(event, event.payload);
        break;
      case "question_expired":
        endAttempt(); // its escalated follows
        break;
      case "claim_rejected":
      case "commented":
      case "lapsed": // announced, not acted on: the claim or sweep that takes it over writes lease_expired
      case "acknowledged": // what is unread lives beside the row (task_state.unread_from), not in it
      case "events_archived": // only the last one is in `rest`'s past: see foldEvents
        break;
      default:
        throw new Error(`unexpected event ${event.type} in a task's history`);
    }
  }
  return task;
}

export async function taskHistory(db: Executor, taskId: string | bigint): Promise<TaskEventRow[]> {
  return db.select().from(taskEvents).where(eq(taskEvents.taskId, BigInt(taskId))).orderBy(asc(taskEvents.id));
}
