"use server";

import { guardedAction, operationAction } from "@/lib/auth/action";
import { hasRole } from "@/lib/auth/session";
import {
  addComment,
  addDependencies,
  claim,
  claimNext,
  complete,
  createTask,
  editAnyTask,
  editTask,
  failTask,
  recordSideEffect,
  release,
  renew,
  start,
} from "@/lib/tasks";
import { editTaskInput } from "@/lib/tasks/schemas";

// Staff (and supervisors) working the board. Each action is one engine operation behind
// the guard: session → current role from the database → the API's zod schema → engine.
export const createTaskAction = operationAction("staff", createTask);
export const claimAction = operationAction("staff", claim);
export const claimNextAction = operationAction("staff", claimNext);
export const startAction = operationAction("staff", start);
export const renewAction = operationAction("staff", renew);
export const recordSideEffectAction = operationAction("staff", recordSideEffect);
export const releaseAction = operationAction("staff", release);
export const completeAction = operationAction("staff", complete);
export const failAction = operationAction("staff", failTask);
export const addDependenciesAction = operationAction("staff", addDependencies);

/** Staff edit the tasks they created or held last; a supervisor, any (docs/api.md). */
export const editTaskAction = guardedAction("staff", editTaskInput, (input, { user, run }) =>
  run(hasRole(user, "supervisor") ? editAnyTask : editTask, input),
);
export const addCommentAction = operationAction("staff", addComment);
