"use server";

import { z } from "zod";
import { guardedAction, operationAction } from "@/lib/auth/action";
import { listAudit } from "@/lib/auth/audit";
import { createToken, revokeToken, setMonthlyBudget } from "@/lib/auth/token-admin";
import { cancel, forceRelease, raiseBudget, releaseReservations, requeue, requeueTo, resetBreaker, resolve, setQueuePaused, setQueueSettings, superviseMany, sweepExpiredLeases, type SuperviseDecision, superviseManyInput, reviewMany, reviewManyInput } from "@/lib/tasks";
import { ok } from "@/lib/tasks/model";

// Supervisors only: the escalation inbox, force-release, queues, the breaker, agent tokens.
export const requeueAction = operationAction("supervisor", requeue);
export const resolveAction = operationAction("supervisor", resolve);
export const cancelAction = operationAction("supervisor", cancel);
export const forceReleaseAction = operationAction("supervisor", forceRelease);
/** A task parked on a question: what it reserves, released (docs/reservations.md). */
export const releaseReservationsAction = operationAction("supervisor", releaseReservations);
export const resetBreakerAction = operationAction("supervisor", resetBreaker);
export const sweepAction = operationAction("supervisor", sweepExpiredLeases);
export const setQueueSettingsAction = operationAction("supervisor", setQueueSettings);
export const setQueuePausedAction = operationAction("supervisor", setQueuePaused);

export const createTokenAction = operationAction("supervisor", createToken);
export const revokeTokenAction = operationAction("supervisor", revokeToken);

/** Budgets (docs/budgets.md): raise a parked task's limit; set an agent token's monthly cap. */
export const raiseBudgetAction = operationAction("supervisor", raiseBudget);
export const setMonthlyBudgetAction = operationAction("supervisor", setMonthlyBudget);

/** Who did what to whom among people (the people page) or tokens (the agents page), newest first. */
export const auditAction = guardedAction("supervisor", z.strictObject({ subject: z.enum(["person", "token", "webhook", "schedule"]) }), async (input, { db }) =>
  ok(await listAudit(db, input.subject)),
);

export interface BulkOutcome {
  action: SuperviseDecision;
  succeeded: number;
  /** Ids of the tasks that changed. */
  done: string[];
  /** Tasks that did not change, with why (someone changed them first, say). */
  conflicts: { taskId: string; code: string; message: string }[];
}

/**
 * The inbox's bulk decision over a selection, a group or everything its filter matches:
 * one engine call (lib/tasks/supervise/supervise-many.ts), one transaction, each task fenced by its
 * own version, so a stale task is reported and the rest are done.
 */
export const bulkSuperviseAction = guardedAction("supervisor", superviseManyInput, async (input, { run }) => {
  const results = await run(superviseMany, input);
  if (!results.ok) return results;
  const outcome: BulkOutcome = { action: input.action, succeeded: 0, done: [], conflicts: [] };
  for (const result of results.value) {
    if (result.ok) {
      outcome.succeeded += 1;
      outcome.done.push(result.taskId);
    } else {
      outcome.conflicts.push({ taskId: result.taskId, code: result.error.code, message: result.error.message });
    }
  }
  return ok(outcome);
});

export interface BulkReviewOutcome {
  decision: "approve" | "reject";
  /** Ids of the tasks decided. */
  done: string[];
  /** Tasks the engine refused, each with its sentence (self_review: the supervisor worked on it). */
  refused: { taskId: string; code: string; message: string }[];
}

/**
 * The inbox's bulk Approve / Reject over selected in_review tasks: one engine call
 * (lib/tasks/review/review-many.ts), each task the single review with its reviewer rule, so
 * a task this supervisor submitted or held is refused in its own line and the rest decided.
 */
export const bulkReviewAction = guardedAction("supervisor", reviewManyInput, async (input, { run }) => {
  const results = await run(reviewMany, input);
  if (!results.ok) return results;
  const outcome: BulkReviewOutcome = { decision: input.decision, done: [], refused: [] };
  for (const result of results.value) {
    if (result.ok) outcome.done.push(result.taskId);
    else outcome.refused.push({ taskId: result.taskId, code: result.error.code, message: result.error.message });
  }
  return ok(outcome);
});

/** "Requeue to…": an escalated task moved to another queue and requeued there, in one transaction. */
export const requeueToAction = operationAction("supervisor", requeueTo);
