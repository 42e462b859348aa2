"use server";

import { z } from "zod";
import { guardedAction, operationAction } from "@/lib/auth/action";
import { createAgentToken, revokeAgentToken, tokenName } from "@/lib/auth/tokens";
import { cancel, forceRelease, requeue, resetBreaker, resolve, setQueuePaused, setQueueSettings, sweepExpiredLeases } from "@/lib/tasks";
import { taskId, version } from "@/lib/tasks/schemas";
import { ok, fail } from "@/lib/tasks/types";

// Supervisors only: the escalation inbox, force-release, queues, the breaker, agent tokens.
export const requeueAction = operationAction("supervisor", requeue);
export const resolveAction = operationAction("supervisor", resolve);
export const cancelAction = operationAction("supervisor", cancel);
export const forceReleaseAction = operationAction("supervisor", forceRelease);
export const resetBreakerAction = operationAction("supervisor", resetBreaker);
export const sweepAction = operationAction("supervisor", sweepExpiredLeases);
export const setQueueSettingsAction = operationAction("supervisor", setQueueSettings);
export const setQueuePausedAction = operationAction("supervisor", setQueuePaused);

export const createTokenAction = guardedAction(
  "supervisor",
  z.strictObject({ name: tokenName, role: z.enum(["agent", "observer", "supervisor"]).optional() }),
  async (input, { db }) => {
    try {
      return ok(await createAgentToken(db, input));
    } catch (error) {
      return fail({ code: "invalid_request", message: error instanceof Error ? error.message : "could not create the token", field: "name" });
    }
  },
);

export const revokeTokenAction = guardedAction("supervisor", z.strictObject({ name: tokenName }), async (input, { db }) =>
  (await revokeAgentToken(db, input.name))
    ? ok({ revoked: input.name })
    : fail({ code: "not_found", message: `No live token is named ${input.name}` }),
);

const bulkOperations = { requeue, resolve, cancel } as const;

export interface BulkOutcome {
  action: keyof typeof bulkOperations;
  succeeded: number;
  /** Ids of the tasks that changed. */
  done: string[];
  /** Tasks that did not change, with why (someone changed them first, say). */
  conflicts: { taskId: string; code: string; message: string }[];
}

/**
 * The inbox's bulk decision over the tasks of its current filter. Each task is its own
 * engine call (its own transaction and fencing version), so one conflict does not undo
 * the others: the answer says how many changed and which did not.
 */
export const bulkSuperviseAction = guardedAction(
  "supervisor",
  z.strictObject({
    action: z.enum(["requeue", "resolve", "cancel"]),
    tasks: z.array(z.strictObject({ taskId, version })).min(1).max(500),
  }),
  async (input, { run }) => {
    const outcome: BulkOutcome = { action: input.action, succeeded: 0, done: [], conflicts: [] };
    for (const task of input.tasks) {
      const result = await run(bulkOperations[input.action], task);
      if (result.ok) {
        outcome.succeeded += 1;
        outcome.done.push(task.taskId);
      } else {
        outcome.conflicts.push({ taskId: task.taskId, code: result.error.code, message: result.error.message });
      }
    }
    return ok(outcome);
  },
);
