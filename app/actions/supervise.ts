"use server";

import { z } from "zod";
import { guardedAction, operationAction } from "@/lib/auth/action";
import { createAgentToken, revokeAgentToken, tokenName } from "@/lib/auth/tokens";
import { cancel, forceRelease, requeue, resetBreaker, resolve, setQueuePaused, setQueueSettings, superviseMany, sweepExpiredLeases, type SuperviseDecision } from "@/lib/tasks";
import { superviseManyInput } from "@/lib/tasks/supervise-many";
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
 * one engine call (lib/tasks/supervise-many.ts), one transaction, each task fenced by its
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
