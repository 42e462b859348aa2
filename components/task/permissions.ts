import type { QueueRules } from "@/lib/tasks/queries";
import { HELD, type TaskView, type Viewer } from "./wire";

export type TaskAction =
  | "claim"
  | "start"
  | "renew"
  | "sideEffect"
  | "release"
  | "complete"
  | "fail"
  | "forceRelease"
  | "requeue"
  | "resolve"
  | "cancel";

/** The lease has lapsed by the (server-corrected) clock the page keeps. */
export function leaseLapsed(task: TaskView, now: number): boolean {
  return HELD.includes(task.status) && (!task.leaseUntil || Date.parse(task.leaseUntil) <= now);
}

/**
 * What the viewer may do to the task now, as DESIGN.md's table says. This only decides
 * which buttons to show: the server checks every call again and has the last word.
 */
export function availableActions(task: TaskView, viewer: Viewer, now: number, rules?: QueueRules): TaskAction[] {
  if (task.pending) return [];
  const actions = actionsByState(task, viewer, now);
  // An agents-only queue takes no claim from a person (the server refuses it too).
  return rules?.claimants === "agents" ? actions.filter((a) => a !== "claim") : actions;
}

function actionsByState(task: TaskView, viewer: Viewer, now: number): TaskAction[] {
  const supervisor = viewer.role === "supervisor";
  const mine = task.owner?.id === viewer.actorId;
  const lapsed = leaseLapsed(task, now);
  const actions: TaskAction[] = [];
  switch (task.status) {
    case "queued":
      actions.push("claim");
      if (supervisor) actions.push("cancel");
      break;
    case "claimed":
    case "started":
      if (mine) {
        if (lapsed) actions.push("claim");
        if (task.status === "claimed" && !lapsed) actions.push("start");
        if (task.status === "started") actions.push("complete");
        if (!lapsed) actions.push("renew", "sideEffect");
        actions.push("release", "fail");
      } else {
        if (lapsed) actions.push("claim");
        if (supervisor) actions.push("forceRelease");
      }
      break;
    case "escalated":
      if (supervisor) actions.push("requeue", "resolve", "cancel");
      break;
    default:
      break;
  }
  return actions;
}

export const actionLabels: Record<TaskAction, string> = {
  claim: "Claim",
  start: "Start",
  renew: "Renew lease",
  sideEffect: "Record side effect",
  release: "Release…",
  complete: "Complete",
  fail: "Fail…",
  forceRelease: "Force release",
  requeue: "Requeue",
  resolve: "Resolve",
  cancel: "Cancel task",
};

/**
 * Why the viewer can do nothing to the task now, in a sentence for the action area — never
 * an empty box. Null where there is something to do, or the page says it already (done).
 */
export function whyNoActions(task: TaskView, viewer: Viewer, now: number, rules?: QueueRules): string | null {
  if (task.pending || task.status === "done" || task.status === "cancelled") return null;
  if (availableActions(task, viewer, now, rules).length > 0) return null;
  if (rules?.claimants === "agents" && (task.status === "queued" || leaseLapsed(task, now))) {
    return `Only agents claim tasks in queue ${task.queue}: a person cannot take this one.`;
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
