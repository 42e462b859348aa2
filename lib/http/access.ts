import "server-only";
import type { z } from "zod";
import type { TokenRole } from "@/db/schema";
import { addComment, addDependencies, answerQuestion, askQuestion, cancel, claim, claimBatch, claimNext, completeAndClaimNext, completeMany, createClaimToken, createQueue, createTaskOnce, editTask, failTask, forceRelease, getQuestion, listReservations, raiseBudget, recordCheckpoint, releaseReservations, taskCheckpointsList, taskLease, acknowledge, recordEffect, recordSideEffect, release, removeDependency, renew, requeue, resolve, resolveEffect, review, start, taskEffectsList, taskReadiness, updateQueue, verifyFence, type Operation } from "@/lib/tasks";
import { tokenRoles, type Standing } from "@/lib/tasks/model";
import { attention } from "@/lib/attention/attention";
import { setMonthlyBudget } from "@/lib/auth/token-admin";
import { adoptSchedule, createSchedule, deleteSchedule, updateSchedule } from "@/lib/schedules/ops";
import { adoptWebhook, createWebhook, deleteWebhook } from "@/lib/webhooks/ops";
import { endpoints, type Endpoint, type EndpointId } from "./endpoints";

// Who may call an endpoint, in one place (docs/architecture.md, "Who may"): an endpoint that
// runs an engine operation admits the tokens whose standing the operation's `who` admits
// (standing.ts tokenRoles), so the API cannot promise what the engine refuses; only an
// endpoint that runs none — a read of the board, the stream, the document — states its
// `roles` in the registry. The registry itself stays pure (the typed client imports it), so
// the operations are joined to it here, on the server. OpenAPI's x-roles, the handler's 403
// before the body is read and the MCP tool lists all read `rolesOf`.

/** The engine operation each endpoint's handler runs (lib/http/handlers.ts); the handler's `run` checks it. */
const OPERATION_OF: Partial<Record<EndpointId, Operation<z.ZodType, unknown>>> = {
  createTask: createTaskOnce, addDependencies, removeDependency, taskReadiness, editTask, addComment,
  claimNext, claimBatch, claimTask: claim, startTask: start, heartbeat: renew, recordSideEffect, releaseTask: release,
  completeTask: completeAndClaimNext, completions: completeMany, failTask, reviewTask: review, raiseBudget,
  setTokenBudget: setMonthlyBudget, requeueTask: requeue, resolveTask: resolve, cancelTask: cancel, forceReleaseTask: forceRelease, releaseReservations, taskLease, ackTask: acknowledge,
  recordEffect, listEffects: taskEffectsList, recordCheckpoint, listCheckpoints: taskCheckpointsList, resolveEffect, askQuestion, getQuestion, answerQuestion, verifyFence, createClaimToken,
  listReservations, createQueue, updateQueue, attention,
  createSchedule, updateSchedule, deleteSchedule, adoptSchedule, createWebhook, deleteWebhook, adoptWebhook,
};

const JOINED = new Map<Endpoint, Operation<z.ZodType, unknown>>(
  (Object.entries(OPERATION_OF) as [EndpointId, Operation<z.ZodType, unknown>][]).map(([id, op]) => [endpoints[id], op]),
);

const ROLES = new Map<Endpoint, TokenRole[] | "public">(
  (Object.entries(endpoints) as [EndpointId, Endpoint][]).map(([id, endpoint]) => {
    const op = OPERATION_OF[id];
    if (op && endpoint.roles) throw new Error(`${id} runs ${op.name}: its roles are the operation's, not stated in the registry`);
    const roles = op ? tokenRoles(op.who) : endpoint.roles;
    if (!roles) throw new Error(`${id} runs no operation, so the registry states its roles`);
    return [endpoint, roles];
  }),
);

/** The token roles an endpoint admits ("public": no token needed); an endpoint outside the registry (MCP, A2A) states its own. */
export function rolesOf(endpoint: Endpoint): TokenRole[] | "public" {
  const roles = ROLES.get(endpoint) ?? endpoint.roles;
  if (!roles) throw new Error(`${endpoint.operationId} states no roles`);
  return roles;
}

/** The operation an endpoint runs, if any: who-may.test.ts checks every write runs one. */
export const operationOf = (id: EndpointId): Operation<z.ZodType, unknown> | undefined => OPERATION_OF[id];

/**
 * Whether an endpoint may run `op`: one joined to an operation runs only operations that admit
 * the same tokens (a completion that claims the next task), so what it publishes is what the
 * engine decides. An endpoint that publishes its own roles (A2A's) is not held to it.
 */
export function runsAsPublished(endpoint: Endpoint, op: { who: readonly Standing[] }): boolean {
  const joined = JOINED.get(endpoint);
  return !joined || tokenRoles(op.who).join() === tokenRoles(joined.who).join();
}
