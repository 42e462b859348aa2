import { A2AError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { EngineError } from "@/lib/tasks/model";

// An engine refusal as the SDK's A2A error: the engine's sentence as the message, its code in
// the error's metadata (google.rpc.ErrorInfo: `metadata.code`), so an A2A client reads the
// same words and code an API client would. The JSON-RPC handler turns these into error codes.

export type Refusal = { code: EngineError["code"] | "payload_too_large"; message: string };

export function a2aError(refusal: Refusal, during: "cancel" | "other" = "other"): A2AError {
  const options = { message: refusal.message, metadata: { code: refusal.code } };
  if (refusal.code === "not_found") return new TaskNotFoundError(options);
  if (refusal.code === "invalid_request" || refusal.code === "payload_too_large") return new RequestMalformedError(options);
  // Whoever may not cancel, or a task past cancelling: A2A has one error for both.
  if (during === "cancel") return new TaskNotCancelableError(options);
  return new UnsupportedOperationError(options);
}

/** The A2A task a caller may not see is one that does not exist, as the API's 404 says. */
export const taskNotFound = (id: string) => a2aError({ code: "not_found", message: `Task ${id} does not exist` });

export const malformed = (message: string) => a2aError({ code: "invalid_request", message });
