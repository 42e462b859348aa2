import type { QueueRules } from "@/lib/tasks";
import { FINISHED, HELD, MOVES, waiting, type MoveName, type MoveRow, mayMake, personRoles } from "@/lib/tasks/model";
import type { TaskView, Viewer } from "./wire";
import { RENEW } from "@/lib/acts";

/** The moves the page offers as buttons, in the order it shows them. */
export const TASK_ACTIONS = [
  "claim", "start", "complete", "renew", "sideEffect", "release", "fail", "forceRelease", "releaseReservations", "requeue", "resolve", "cancel",
] as const satisfies readonly MoveName[];
export type TaskAction = (typeof TASK_ACTIONS)[number];

/** The lease has lapsed by the (server-corrected) clock the page keeps. */
export function leaseLapsed(task: TaskView, now: number): boolean {
  return HELD.includes(task.status) && (!task.leaseUntil || Date.parse(task.leaseUntil) <= now);
}

/**
 * What the viewer may do to the task now, read from the machine's rows (lib/tasks/core/machine.ts).
 * This only decides which buttons to show: the server checks every call again and has the
 * last word (lib/tasks/core/machine.test.ts checks the two agree).
 */
export function availableActions(task: TaskView, viewer: Viewer, now: number, rules?: QueueRules): TaskAction[] {
  if (task.pending) return [];
  const actions = TASK_ACTIONS.filter((action) => personRoles(mayMake(action)).includes(viewer.role) && offered(MOVES[action], task, viewer, now))
    // A parked task's reservations are released only where there are some (the engine's rule too).
    .filter((action) => action !== "releaseReservations" || task.reserves.length > 0);
  // An agents-only queue takes no claim from a person (the server refuses it too).
  return rules?.claimants === "agents" ? actions.filter((a) => a !== "claim") : actions;
}

function offered(row: MoveRow, task: TaskView, viewer: Viewer, now: number): boolean {
  const lapsed = leaseLapsed(task, now);
  const from = row.from.includes(task.status) || (lapsed && !!row.fromLapsed?.includes(task.status));
  if (!from || (row.requiresLease && lapsed) || (row.requiresReady && waiting(task, now))) return false;
  const mine = task.owner?.id === viewer.actorId;
  switch (row.who) {
    case "owner":
      return mine;
    case "supervisor":
      // Only people the move admits reach here (availableActions). A supervisor who holds the task
      // works on it as its owner does (release, not force-release).
      return !(HELD.includes(task.status) && mine);
    case "claimant":
      return true;
    default:
      return false;
  }
}

export const actionLabels: Record<TaskAction, string> = {
  claim: "Claim",
  start: "Start",
  renew: RENEW.label,
  sideEffect: "Record side effect",
  release: "Release…",
  complete: "Complete",
  fail: "Fail…",
  forceRelease: "Force release",
  releaseReservations: "Release reservations",
  requeue: "Requeue",
  resolve: "Resolve",
  cancel: "Cancel task",
};

/**
 * Why the viewer can do nothing to the task now, in a sentence for the action area — never
 * an empty box. Null where there is something to do, or the page says it already (done).
 */
export function whyNoActions(task: TaskView, viewer: Viewer, now: number, rules?: QueueRules): string | null {
  if (task.pending || FINISHED.includes(task.status)) return null;
  if (availableActions(task, viewer, now, rules).length > 0) return null;
  if (rules?.claimants === "agents" && (task.status === "queued" || leaseLapsed(task, now))) {
    return `Only agents claim tasks in queue ${task.queue}: a person cannot take this one.`;
  }
  if (waiting(task, now)) {
    return task.blockedBy.length > 0
      ? "It waits for the tasks it depends on: it can be claimed once they are done."
      : "It waits for its not-before time: it can be claimed from then.";
  }
  if (HELD.includes(task.status) && task.owner) {
    return `${task.owner.name} holds this task while their lease runs: only they can work on it, or a supervisor can force-release it.`;
  }
  if (task.status === "escalated") {
    return `It is in the supervisors' inbox after ${task.failureCount} failure${task.failureCount === 1 ? "" : "s"}: only a supervisor can requeue, resolve or cancel it.`;
  }
  return "There is nothing you can do to this task right now.";
}

/** The next failure is the queue's last strike: it sends the task to the supervisors' inbox. */
export const isLastStrike = (task: TaskView, rules?: QueueRules) => !!rules && task.failureCount + 1 >= rules.maxFailures;
