import { asc, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { taskEvents, type TaskEventRow, type TaskRow } from "@/db/schema";

/**
 * The part of a task row that its events determine. blocked_by is not: it shrinks when
 * other tasks finish (their events, not this task's); its invariant — the dependencies not
 * done — is checked against the graph instead (lib/tasks/graph.test.ts).
 */
export type FoldedTask = Omit<TaskRow, "id" | "blockedBy">;

/** Facts about a task that change none of status, owner, needs_check or failure_count: no version. */
const NOT_TRANSITIONS: TaskEventRow["type"][] = [
  "claim_rejected", "heartbeat", "side_effect", "attempt_limit_reached", "unblocked", "commented", "events_archived",
];

/** Facts appended without the task's row lock, which change nothing of the row (not even updated_at). */
const ASIDES: TaskEventRow["type"][] = ["claim_rejected", "commented", "events_archived"];

// Events that complete the transition of the event before them, so they add no version.
const COMPANIONS: Partial<Record<TaskEventRow["type"], TaskEventRow["type"]>> = {
  escalated: "failed",
  started: "check_confirmed",
  // A lapse of an attempt that met its ceiling is a strike: lease_expired and failed, one version.
  failed: "lease_expired",
};

/**
 * Replays a task's events, oldest first, into the state of its row. It re-derives every
 * field from the meaning of each event — the version included, one per transition — so
 * a row that disagrees with its folded history exposes a transition that wrote the
 * wrong thing or forgot its event.
 */
export function foldEvents(events: Pick<TaskEventRow, "type" | "actorId" | "payload" | "createdAt" | "queue">[]): FoldedTask {
  // A history whose beginning was archived (`events archive`) replays from the archive's
  // fact: it holds the row as it was then, which every event before it (by id) had made.
  let checkpoint = -1;
  for (let i = events.length - 1; i >= 0 && checkpoint < 0; i--) if (events[i]!.type === "events_archived") checkpoint = i;
  if (checkpoint >= 0) {
    const fact = events[checkpoint]!;
    return replay(fromCheckpoint((fact.payload as Record<string, unknown>).task), events.slice(checkpoint + 1), fact.type, undefined);
  }
  const [first, ...rest] = events;
  if (!first || first.type !== "created") throw new Error("a task's history starts with its created event");
  const p = first.payload as Record<string, unknown>;
  const task: FoldedTask = {
    queue: first.queue,
    title: p.title as string,
    description: p.description as string,
    payload: p.payload,
    priority: p.priority as number,
    status: "queued",
    ownerId: null,
    leaseUntil: null,
    leaseSeconds: null,
    version: 1,
    failureCount: 0,
    needsCheck: false,
    sideEffectRecorded: false,
    dependsOn: ((p.dependsOn as string[] | undefined) ?? []).map((id) => BigInt(id)),
    notBefore: p.notBefore ? new Date(p.notBefore as string) : null,
    idempotencyKey: (p.idempotencyKey as string | undefined) ?? null,
    claimedAt: null,
    attemptLimited: false,
    progress: null,
    progressAt: null,
    handoff: null,
    handoffAt: null,
    createdAt: first.createdAt,
    updatedAt: first.createdAt,
  };

  return replay(task, rest, first.type, p.version);
}

const DATES = ["leaseUntil", "notBefore", "claimedAt", "progressAt", "handoffAt", "createdAt", "updatedAt"] as const;

/** The row as the archive's fact keeps it (JSON: dates as ISO strings, ids as strings). */
export function taskCheckpoint(row: TaskRow): Record<string, unknown> {
  const { id: _id, blockedBy: _blockedBy, ...state } = row;
  return { ...state, dependsOn: state.dependsOn.map(String) };
}

function fromCheckpoint(value: unknown): FoldedTask {
  if (!value || typeof value !== "object") throw new Error("an events_archived fact without the task's state");
  const state = { ...(value as Record<string, unknown>) };
  for (const key of DATES) state[key] = state[key] == null ? null : new Date(state[key] as string);
  state.dependsOn = ((state.dependsOn as string[] | undefined) ?? []).map((id) => BigInt(id));
  return state as unknown as FoldedTask;
}

/** Applies events (oldest first) to a task's state; `previous*` are of the event before them. */
function replay(
  task: FoldedTask,
  rest: Pick<TaskEventRow, "type" | "actorId" | "payload" | "createdAt" | "queue">[],
  previousTypeAtStart: TaskEventRow["type"],
  previousVersionAtStart: unknown,
): FoldedTask {
  const endAttempt = () => {
    task.status = "queued";
    task.ownerId = null;
    task.leaseUntil = null;
    task.leaseSeconds = null;
    task.needsCheck = task.needsCheck || task.sideEffectRecorded;
    task.sideEffectRecorded = false;
    task.claimedAt = null;
    task.attemptLimited = false;
    task.progress = null;
    task.progressAt = null;
  };
  const handoff = (event: { createdAt: Date }, payload: Record<string, unknown>) => {
    if (payload.handoff === undefined) return;
    task.handoff = payload.handoff;
    task.handoffAt = event.createdAt;
  };

  let previousType = previousTypeAtStart;
  let previousVersion = previousVersionAtStart;
  for (const event of rest) {
    const payload = event.payload as Record<string, unknown>;
    const transition = !NOT_TRANSITIONS.includes(event.type);
    // A companion shares its transition's version; an escalation on its own (a cancelled
    // dependency) can follow a failure that requeued, and is a transition of its own.
    const companion = COMPANIONS[event.type] === previousType && payload.version === previousVersion;
    if (transition && !companion) task.version += 1;
    if (!ASIDES.includes(event.type)) task.updatedAt = event.createdAt;
    // A losing claim or a comment appends without the row lock, so its id may fall between the
    // two rows of another transition (check_confirmed, started): it must not break that pair apart.
    if (!ASIDES.includes(event.type)) {
      previousType = event.type;
      previousVersion = payload.version;
    }

    switch (event.type) {
      case "claimed":
        task.status = "claimed";
        task.ownerId = event.actorId;
        task.leaseUntil = new Date(payload.leaseUntil as string);
        task.leaseSeconds = payload.leaseSeconds as number;
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
        task.leaseUntil = new Date(payload.leaseUntil as string);
        if ("progress" in payload) {
          task.progress = payload.progress;
          task.progressAt = event.createdAt;
        }
        break;
      case "attempt_limit_reached":
        task.attemptLimited = true;
        break;
      case "side_effect":
        task.sideEffectRecorded = true;
        break;
      case "released":
      case "lease_expired":
        endAttempt();
        handoff(event, payload);
        break;
      case "failed":
        endAttempt();
        handoff(event, payload);
        task.failureCount += 1;
        task.notBefore = payload.notBefore ? new Date(payload.notBefore as string) : null;
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
        task.dependsOn = (payload.dependsOn as string[]).map((id) => BigInt(id));
        break;
      case "unblocked":
        break;
      case "resolved":
        task.status = "done";
        break;
      case "completed":
        task.status = "done";
        task.leaseUntil = null;
        task.leaseSeconds = null;
        task.sideEffectRecorded = false;
        break;
      case "cancelled":
        task.status = "cancelled";
        break;
      case "edited": {
        const changes = (payload.changes ?? {}) as Record<string, { to: unknown }>;
        if (changes.title) task.title = changes.title.to as string;
        if (changes.description) task.description = changes.description.to as string;
        if (changes.priority) task.priority = changes.priority.to as number;
        if (changes.payload) task.payload = changes.payload.to;
        break;
      }
      case "claim_rejected":
      case "commented":
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
