import type { ActionError } from "@/lib/auth/action";
import { formatTime } from "@/components/ui/local-time";
import type { TaskView, Wire } from "./wire";

export type ErrorView = Omit<Wire<ActionError>, "task"> & { task?: TaskView };

/** "12:03:07": a time of day people can match against a clock (browser only: local zone). */
export function clockTime(iso: string | null | undefined): string {
  return iso ? formatTime(iso) : "—";
}

const who = (task?: TaskView) => task?.owner?.name ?? "Someone";

/**
 * Every error code as a sentence a person can act on, naming who and when where the
 * server said (error.task is the task as it is now). `verb` is what was tried: "claim".
 */
export function describeError(error: ErrorView, verb: string, viewerId?: string): string {
  const task = error.task;
  const when = clockTime(task?.updatedAt);
  const mine = !!task?.owner && task.owner.id === viewerId;
  switch (error.code) {
    case "already_claimed":
      return mine ? `You already hold this task — since ${when}.` : `${who(task)} claimed this first — ${when}.`;
    case "version_conflict":
      return task
        ? `${task.owner && !mine ? task.owner.name : "Someone"} changed this task first — it is ${task.status} now (${when}). Look again, then retry.`
        : "This task changed while you were looking. Look again, then retry.";
    case "not_owner":
      return task?.owner
        ? `${task.owner.name} holds this task now (since ${when}), so you can't ${verb} it.`
        : `You no longer hold this task, so you can't ${verb} it.`;
    case "lease_expired":
      return `Your lease ran out${task?.leaseUntil ? ` at ${clockTime(task.leaseUntil)}` : ""}, so you can't ${verb} it now. Claim it again to carry on.`;
    case "invalid_transition":
      return task ? `This task is ${task.status} now (since ${when}), so you can't ${verb} it.` : `You can't ${verb} this task in its current state.`;
    case "check_required":
      return "An earlier attempt began a side effect. Check what it did, then confirm the check to start.";
    case "busy":
      return "Someone else is changing this task at this very moment. Try again in a second.";
    case "not_found":
      return "This task doesn't exist (any more).";
    case "invalid_request":
      return `That wasn't accepted: ${error.message}.`;
    case "unauthorized":
      return "Your session has ended. Sign in again to carry on.";
    case "forbidden":
      return "Your role doesn't allow this.";
    case "unavailable":
      return "The server can't reach its database right now. Try again shortly.";
    default:
      return error.message;
  }
}
