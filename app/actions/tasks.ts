"use server";

import { operationAction } from "@/lib/auth/action";
import {
  acknowledge,
  addComment,
  addDependencies,
  claim,
  complete,
  createTask,
  editTask,
  failTask,
  recordSideEffect,
  release,
  removeDependency,
  renew,
  resolveEffect,
  review,
  start,
} from "@/lib/tasks";

// Staff (and supervisors) working the board. Each action is one engine operation behind
// the guard: session → current role from the database (the standing) → engine, which
// decides who may and validates with the API's zod schema.
export const createTaskAction = operationAction("staff", createTask);
export const claimAction = operationAction("staff", claim);
export const startAction = operationAction("staff", start);
export const renewAction = operationAction("staff", renew);
export const recordSideEffectAction = operationAction("staff", recordSideEffect);
export const releaseAction = operationAction("staff", release);
export const completeAction = operationAction("staff", complete);
export const failAction = operationAction("staff", failTask);
export const addDependenciesAction = operationAction("staff", addDependencies);
export const removeDependencyAction = operationAction("staff", removeDependency);

/** Staff edit the tasks they created or held last; a supervisor, any (the engine's rule, docs/api.md). */
export const editTaskAction = operationAction("staff", editTask);
export const addCommentAction = operationAction("staff", addComment);
/** The holder marks others' comments read (docs/leases.md): completing waits for it. */
export const ackAction = operationAction("staff", acknowledge);

/** The effect ledger: the holder (or a supervisor) says what became of an unknown effect (docs/effects.md). */
export const resolveEffectAction = operationAction("staff", resolveEffect);

/** Review before done: approve or reject a submission; the engine refuses its submitter and its holders (self_review). */
export const reviewAction = operationAction("staff", review);
