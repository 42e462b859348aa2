import type { ClaimScope } from "@/lib/auth/claim-tokens";
import type { ClaimOp } from "@/lib/tasks/model";
import { endpoints, type Endpoint, type EndpointId } from "./endpoints";
import type { ApiError } from "./errors";

// Where a claim token may go (docs/contract.md#claim-scoped-tokens, docs/security.md): decided
// here once, by the handler every route and every in-process MCP call passes through
// (lib/http/handler.ts), from the endpoint being called and the task its path names — never
// by a route itself. An endpoint not listed is refused to every claim token (wrong_task), so
// a new route is closed to them until it is given an op here.

/** The op each endpoint a claim token may call needs; `narrow` is minting, which any live claim token may do for itself. */
export const CLAIM_OP_OF: Partial<Record<EndpointId, ClaimOp | "narrow">> = {
  getTask: "read",
  listTaskEvents: "read",
  listEffects: "read",
  taskReadiness: "read",
  taskLease: "read",
  heartbeat: "progress",
  // Reading others' comments is part of the work, as a heartbeat is (docs/leases.md).
  ackTask: "progress",
  // Starting a claimed task moves the same attempt on, as a heartbeat keeps it.
  startTask: "progress",
  // A checkpoint is the attempt's progress, as a heartbeat's is (docs/contract.md "Checkpoints and progress").
  recordCheckpoint: "progress",
  listCheckpoints: "read",
  recordEffect: "effects",
  resolveEffect: "effects",
  recordSideEffect: "effects",
  completeTask: "complete",
  failTask: "fail",
  releaseTask: "release",
  addComment: "comment",
  // Asking a person (docs/questions.md): the question is the attempt's own, as a heartbeat is.
  askQuestion: "ask",
  getQuestion: "read",
  createClaimToken: "narrow",
};

const opOf = new Map<Endpoint, ClaimOp | "narrow">(
  (Object.entries(CLAIM_OP_OF) as [EndpointId, ClaimOp | "narrow"][]).map(([id, op]) => [endpoints[id], op]),
);

/** The endpoint's op for claim tokens, by its operationId (for endpoints made outside the registry, e.g. /api/mcp: none). */
export const claimOpOf = (endpoint: Endpoint) => opOf.get(endpoint);

export const claimEnded = (scope: ClaimScope): ApiError => ({
  code: "claim_ended",
  message: `This claim token's attempt (${scope.attempt}) of task ${scope.taskId} has ended: it no longer acts for anyone`,
});

/**
 * Why a claim token may not make this call, or null when it may: its attempt ended
 * (claim_ended, first: the token is dead wherever it is used), another task or a route no op
 * covers (wrong_task), an op it was not given (op_not_allowed).
 */
export function claimRefusal(endpoint: Endpoint, scope: ClaimScope, params: Record<string, string>): ApiError | null {
  if (!scope.live) return claimEnded(scope);
  const op = claimOpOf(endpoint);
  if (!op || !endpoint.path.startsWith("/tasks/{id}")) {
    return { code: "wrong_task", message: `A claim token for task ${scope.taskId} may not call ${endpoint.operationId}: it works only on its task` };
  }
  if (params.id !== scope.taskId) {
    return { code: "wrong_task", message: `This claim token is for task ${scope.taskId}, not task ${params.id}` };
  }
  if (op !== "narrow" && !scope.ops.includes(op)) {
    return { code: "op_not_allowed", message: `This claim token may ${scope.ops.join(", ")}; ${endpoint.operationId} needs ${op}` };
  }
  return null;
}

/** What the body may not ask of a claim token: a completion that claims the next task would take another task. */
export function claimBodyRefusal(endpoint: Endpoint, scope: ClaimScope, body: unknown): ApiError | null {
  if (endpoint === endpoints.completeTask && (body as { next?: unknown } | undefined)?.next !== undefined) {
    return { code: "wrong_task", message: `A claim token for task ${scope.taskId} may not claim another task (complete without next)` };
  }
  return null;
}

