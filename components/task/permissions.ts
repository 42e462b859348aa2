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
export function availableActions(task: TaskView, viewer: Viewer, now: number): TaskAction[] {
  if (task.pending) return [];
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
  release: "Release",
  complete: "Complete",
  fail: "Fail…",
  forceRelease: "Force release",
  requeue: "Requeue",
  resolve: "Resolve",
  cancel: "Cancel task",
};
