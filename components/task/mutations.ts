"use client";

import type { z } from "zod";
import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import type { ActionResult } from "@/lib/auth/action";
import { type Task, type completeInput, MOVES } from "@/lib/tasks/model";
import type { HandoffNote } from "@/lib/client";
import {
  claimAction,
  completeAction,
  failAction,
  recordSideEffectAction,
  releaseAction,
  renewAction,
  startAction,
} from "@/app/actions/tasks";
import { cancelAction, forceReleaseAction, releaseReservationsAction, requeueAction, resolveAction } from "@/app/actions/supervise";
import { useToast } from "@/components/ui/toaster";
import { useViewer } from "@/components/realtime/viewer";
import { taskKeys } from "./api";
import { putTask } from "./cache";
import { describeError, type ErrorView } from "./describe-error";
import type { TaskAction } from "./permissions";
import { predict } from "./predict";
import { toWire, type TaskView, type Viewer } from "./wire";

type CompleteInput = z.input<typeof completeInput>;

/** An action's expected failure, carried through TanStack Query as a thrown value. */
export class ActionFailure extends Error {
  constructor(readonly error: ErrorView) {
    super(error.message);
  }
}

export interface TaskCallVars {
  confirmCheck?: boolean;
  description?: string;
  reason?: string;
  /** A hand-off note on release or fail. */
  handoff?: HandoffNote;
  /** A completion's result (a person's submission for review). */
  result?: CompleteInput["result"];
}

interface Spec {
  /** What the person tried, for sentences ("you can't {verb} it"), where it is not the machine's verb. */
  verb?: string;
  call(task: TaskView, vars: TaskCallVars): Promise<ActionResult<Task>>;
  /** Shown on the card while the server answers. */
  pending: string;
}

const ref = (task: TaskView) => ({ taskId: task.id, version: task.version });

const specs: Record<TaskAction, Spec> = {
  claim: { call: (task) => claimAction(ref(task)), pending: "Claiming…" },
  start: {
    call: (task, vars) => startAction({ ...ref(task), ...(vars.confirmCheck ? { confirmCheck: true } : {}) }),
    pending: "Starting…",
  },
  renew: { call: (task) => renewAction(ref(task)), pending: "Renewing…" },
  sideEffect: {
    call: (task, vars) => recordSideEffectAction({ ...ref(task), description: vars.description ?? "" }),
    pending: "Recording…",
  },
  release: {
    call: (task, vars) => releaseAction({ ...ref(task), ...(vars.handoff ? { handoff: vars.handoff } : {}) }),
    pending: "Releasing…",
  },
  complete: {
    call: (task, vars) => completeAction({ ...ref(task), ...(vars.result !== undefined ? { result: vars.result } : {}) }),
    pending: "Completing…",
  },
  fail: {
    call: (task, vars) => failAction({ ...ref(task), reason: vars.reason ?? "", ...(vars.handoff ? { handoff: vars.handoff } : {}) }),
    pending: "Failing…",
  },
  forceRelease: { verb: "force-release", call: (task) => forceReleaseAction(ref(task)), pending: "Releasing…" },
  releaseReservations: { call: (task) => releaseReservationsAction(ref(task)), pending: "Releasing…" },
  requeue: {
    call: (task, vars) => requeueAction({ ...ref(task), ...(vars.reason ? { reason: vars.reason } : {}) }),
    pending: "Requeueing…",
  },
  resolve: {
    call: (task, vars) => resolveAction({ ...ref(task), ...(vars.reason ? { reason: vars.reason } : {}) }),
    pending: "Resolving…",
  },
  cancel: {
    call: (task, vars) => cancelAction({ ...ref(task), ...(vars.reason ? { reason: vars.reason } : {}) }),
    pending: "Cancelling…",
  },
};

const verbOf = (action: TaskAction) => specs[action].verb ?? MOVES[action].verb;

/** The toast that confirms a fail, a release or an escalation, so nobody wonders whether it went through. */
function confirmation(action: TaskAction, task: TaskView, handoff: boolean): string | null {
  const note = handoff ? " with your hand-off note" : "";
  if (action === "fail") {
    return task.status === "escalated"
      ? `“${task.title}” failed its last strike and went to the supervisors' inbox${note}.`
      : `Failure reported: “${task.title}” is back in the queue${note} (failures: ${task.failureCount}).`;
  }
  if (action === "release") return `Released “${task.title}”: it is back in the queue${note}.`;
  if (action === "forceRelease") return `Force-released “${task.title}” back to the queue.`;
  if (action === "releaseReservations") return `Released what “${task.title}” reserves: other tasks may take it now.`;
  return null;
}

/** Unwraps a server action's result; an expected failure is thrown as an ActionFailure. */
export async function unwrap<T>(result: Promise<ActionResult<T>>): Promise<T> {
  const outcome = await result;
  if (!outcome.ok) throw new ActionFailure(toWire(outcome.error) as ErrorView);
  return outcome.value;
}

/** A sentence for any error a mutation can end with, thrown values included. */
export function errorSentence(error: unknown, verb: string, viewer: Viewer): string {
  if (error instanceof ActionFailure) return describeError(error.error, verb, viewer.actorId);
  return "Couldn't reach the server. Check your connection and try again.";
}

/** Every cached list and task, to put back if the server says no. */
export function snapshot(client: ReturnType<typeof useQueryClient>) {
  return client.getQueriesData({ queryKey: taskKeys.all });
}
export function restore(client: ReturnType<typeof useQueryClient>, saved: [QueryKey, unknown][]) {
  for (const [key, data] of saved) client.setQueryData(key, data);
}

export interface TaskCall {
  action: TaskAction;
  task: TaskView;
  vars?: TaskCallVars;
}

/**
 * Task actions: the server action through TanStack Query, with the expected outcome shown
 * at once and rolled back on failure — then the task as the server says it is now
 * (error.task), and a sentence that says who got there first. One hook serves every
 * action of a card, the action being part of the call.
 */
export function useTaskMutation(options: { onDone?: (call: TaskCall, task: TaskView) => void; onFailed?: (call: TaskCall) => void } = {}) {
  const client = useQueryClient();
  const viewer = useViewer();
  const { notify } = useToast();
  return useMutation({
    mutationFn: async ({ action, task, vars }: TaskCall) => toWire(await unwrap(specs[action].call(task, vars ?? {}))) as TaskView,
    onMutate: async ({ action, task }) => {
      await client.cancelQueries({ queryKey: taskKeys.all });
      const saved = snapshot(client);
      putTask(client, { ...task, ...predict(action, task, viewer), pending: specs[action].pending }, viewer);
      return { saved };
    },
    onError: (error, call, context) => {
      const { action, task } = call;
      if (context) restore(client, context.saved);
      if (error instanceof ActionFailure && error.error.task) putTask(client, error.error.task, viewer);
      notify("error", errorSentence(error, verbOf(action), viewer));
      void client.invalidateQueries({ queryKey: taskKeys.lists });
      void client.invalidateQueries({ queryKey: taskKeys.detail(task.id) });
      void client.invalidateQueries({ queryKey: taskKeys.events(task.id) });
      options.onFailed?.(call);
    },
    onSuccess: (task, call) => {
      putTask(client, task, viewer);
      // Readiness is the server's answer about the task as it was: dropped, not shown while refetched.
      void client.resetQueries({ queryKey: taskKeys.readiness(task.id) });
      const done = confirmation(call.action, task, !!call.vars?.handoff);
      if (done) notify("info", done);
      options.onDone?.(call, task);
    },
  });
}
