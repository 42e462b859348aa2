import type { Task } from "@/lib/http/wire";

/**
 * Any answer other than the documented success. `code` is a code of docs/contract.md#errors; a request
 * that never got an answer is status 0, code "network_error".
 */
export class ClaimboardApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The task as it is now, where the server sent one (e.g. on version_conflict). */
  readonly task?: Task;
  /** The field an invalid_request names, dotted. */
  readonly field?: string;
  /** Seconds to wait before retrying, from Retry-After (busy, rate_limited, unavailable). */
  readonly retryAfter?: number;

  constructor(init: { status: number; code: string; message: string; task?: Task; field?: string; retryAfter?: number; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ClaimboardApiError";
    this.status = init.status;
    this.code = init.code;
    if (init.task) this.task = init.task;
    if (init.field) this.field = init.field;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }
}

/** A refusal's answer as the error it is: the error envelope of docs/contract.md#errors, or what the status says. */
export function toApiError(response: Response, json: unknown, call: string): ClaimboardApiError {
  const error = (json as { error?: { code?: unknown; message?: unknown; task?: Task; field?: unknown } } | undefined)?.error;
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
  return new ClaimboardApiError({
    status: response.status,
    code: typeof error?.code === "string" ? error.code : `http_${response.status}`,
    message: typeof error?.message === "string" ? error.message : `${call} answered ${response.status} ${response.statusText}`.trim(),
    task: error?.task,
    field: typeof error?.field === "string" ? error.field : undefined,
    retryAfter,
  });
}

/** Retry-After as seconds: a number of seconds, or an HTTP date. */
function parseRetryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
