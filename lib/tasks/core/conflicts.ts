import { and, desc, eq, notInArray, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { taskEvents, type EventType, type TaskStatus } from "@/db/schema";
import type { Clock } from "./clock";
import { typedEvent, type TypedEvent } from "./event-payloads";
import { HELD } from "./machine";
import { loadTask } from "./task-row";
import { fail, ok, type ActorRef, type Result, type Task } from "./types";

export { HELD };

export function describeOwner(task: Task): string {
  return task.owner ? `${task.owner.name}` : "nobody";
}

export function notFound(taskId: string) {
  return fail({ code: "not_found", message: `Task ${taskId} does not exist` });
}

/** What a guarded owner call expected, for explaining why its UPDATE changed no row. */
export interface Expectation {
  taskId: string;
  version: number;
  actor: ActorRef;
  verb: string;
  from: readonly TaskStatus[];
  /** Event types a call that already took effect would have written last. */
  doneBy: readonly EventType[];
  requiresLease?: boolean;
  /** Owner-only calls (the default) lose with not_owner when someone else holds the task. */
  ownerOnly?: boolean;
  confirmCheck?: boolean;
}

/**
 * Called after a guarded UPDATE changed zero rows: reads the task as it is now and says
 * why, most useful reason first. A retry of a call that already took effect is success.
 */
export async function explainMiss(tx: Executor, clock: Clock, expected: Expectation): Promise<Result<Task>> {
  const task = await loadTask(tx, expected.taskId);
  if (!task) return notFound(expected.taskId);
  if (await alreadyDone(tx, task, expected)) return ok(task);

  const mine = task.owner?.id === expected.actor.id;
  const where = `Task ${task.id} is ${task.status} (version ${task.version})`;
  if (expected.ownerOnly !== false && HELD.includes(task.status) && !mine) {
    return fail({
      code: "not_owner",
      message: `Task ${task.id} is ${task.status} by ${describeOwner(task)} (version ${task.version}), not by you`,
      task,
    });
  }
  if (expected.requiresLease && (await sweptFromCaller(tx, task, expected))) {
    // A sweep only materialised the lapse: answer as lazy expiry would, so the caller claims again.
    return fail({
      code: "lease_expired",
      message: `Your lease on task ${task.id} lapsed and the task went back to the queue: claim it again`,
      task,
    });
  }
  if (expected.ownerOnly !== false && !mine && task.version > expected.version) {
    // The caller held it at the version it names, and lost it since (released by force, failed over, …).
    return fail({ code: "not_owner", message: `You no longer hold task ${task.id}: it is ${task.status} (version ${task.version})`, task });
  }
  if (!expected.from.includes(task.status)) {
    return fail({ code: "invalid_transition", message: `${where}: cannot ${expected.verb} it`, task });
  }
  if (task.version !== expected.version) {
    return fail({
      code: "version_conflict",
      message: `Task ${task.id} is at version ${task.version}, not ${expected.version}`,
      task,
    });
  }
  if (expected.requiresLease && (await leaseLapsed(tx, clock, task))) {
    return fail({
      code: "lease_expired",
      message: `Your lease on task ${task.id} lapsed at ${task.leaseUntil?.toISOString()}: claim it again`,
      task,
    });
  }
  if (expected.confirmCheck === false && task.needsCheck) {
    return fail({
      code: "check_required",
      message: `Task ${task.id} needs a check: an earlier attempt began a side effect; confirm the check to start`,
      task,
    });
  }
  return fail({ code: "version_conflict", message: `Task ${task.id} changed meanwhile (version ${task.version})`, task });
}

export async function leaseLapsed(tx: Executor, clock: Clock, task: Task): Promise<boolean> {
  if (!task.leaseUntil) return true;
  const [row] = await tx.execute<{ lapsed: boolean }>(
    sql`SELECT ${task.leaseUntil.toISOString()}::timestamptz <= ${clock.now()} AS lapsed`,
  );
  return row?.lapsed ?? true;
}

/** The task's last change; a rejected claim or a comment changed nothing, so neither hides a retry. */
async function lastEvent(tx: Executor, task: Task): Promise<(TypedEvent & { actorId: string }) | undefined> {
  const [last] = await tx
    .select({ type: taskEvents.type, actorId: taskEvents.actorId, payload: taskEvents.payload })
    .from(taskEvents)
    .where(and(eq(taskEvents.taskId, BigInt(task.id)), notInArray(taskEvents.type, ["claim_rejected", "commented"])))
    .orderBy(desc(taskEvents.id))
    .limit(1);
  return last && typedEvent(last);
}

/** The one change since the caller's version is the expiry (by a sweep) of the caller's own lease. */
async function sweptFromCaller(tx: Executor, task: Task, expected: Expectation): Promise<boolean> {
  if (task.status !== "queued" || task.version !== expected.version + 1) return false;
  const last = await lastEvent(tx, task);
  return last?.type === "lease_expired" && last.payload.previousOwnerId === expected.actor.id && last.payload.version === task.version;
}

async function alreadyDone(tx: Executor, task: Task, expected: Expectation): Promise<boolean> {
  if (task.version <= expected.version) return false;
  const last = await lastEvent(tx, task);
  if (!last || last.actorId !== expected.actor.id || !expected.doneBy.includes(last.type)) return false;
  return "version" in last.payload && last.payload.version === task.version;
}
