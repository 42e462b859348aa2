import type { EngineError, EngineErrorCode, Task } from "@/lib/tasks/model";

export type ApiErrorCode =
  | EngineErrorCode | "unauthorized" | "forbidden" | "method_not_allowed" | "payload_too_large" | "rate_limited"
  // Claim-scoped tokens (lib/http/claim-scope.ts).
  | "claim_ended" | "wrong_task" | "op_not_allowed";

/** The error table of docs/contract.md#errors: one status per code. */
export const STATUS_OF: Record<ApiErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  claim_ended: 401,
  wrong_task: 403,
  op_not_allowed: 403,
  forbidden: 403,
  self_review: 403,
  not_found: 404,
  method_not_allowed: 405,
  already_claimed: 409,
  version_conflict: 409,
  not_owner: 409,
  lease_expired: 409,
  invalid_transition: 409,
  check_required: 409,
  busy: 409,
  not_ready: 409,
  dependency_cycle: 409,
  idempotency_conflict: 409,
  queue_paused: 409,
  effects_unresolved: 409,
  submission_changed: 409,
  attempt_limit: 409,
  no_progress: 409,
  unread_human_input: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

export interface ApiError {
  code: ApiErrorCode;
  message: string;
  task?: Task;
  field?: string;
  retryAfterSeconds?: number;
}

/** The one error shape: `{ error: { code, message, task? } }`, never a stack trace. */
export function errorResponse(error: ApiError | EngineError): Response {
  const { code, message, task, field } = error;
  const retryAfter =
    "retryAfterSeconds" in error && error.retryAfterSeconds !== undefined
      ? error.retryAfterSeconds
      : code === "busy" || code === "unavailable"
        ? 1
        : undefined;
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (retryAfter !== undefined) headers["Retry-After"] = String(retryAfter);
  return Response.json(
    { error: { code, message, ...(field ? { field } : {}), ...(task ? { task } : {}) } },
    { status: STATUS_OF[code], headers },
  );
}
