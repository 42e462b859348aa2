import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ClaimboardApiError, type Task } from "@/lib/client";
import type { EngineError } from "@/lib/tasks/model";
import { untrustedMarks, untrustedNotice } from "./untrusted";

// A tool's answer is the API's JSON, as structured content and as text. A refusal is an
// error result whose text is the API's error body (plus `retryAfter`, which the API sends
// as a header): never a thrown error, a crash or a stack trace.

export interface ToolError {
  code: string;
  message: string;
  field?: string;
  task?: Task;
  /** Seconds, from Retry-After (busy, rate_limited, unavailable). */
  retryAfter?: number;
}

/** The data as text, then — when others wrote any of it — the notice for the model, and the marks. */
function marked(value: Record<string, unknown>): Pick<CallToolResult, "content" | "_meta"> {
  const data = { type: "text" as const, text: JSON.stringify(value) };
  const marks = untrustedMarks(value);
  if (marks.length === 0) return { content: [data] };
  // Data first (the API's JSON, as before), then the notice, meant for the model: others' text is data.
  const notice = { type: "text" as const, text: untrustedNotice(marks), annotations: { audience: ["assistant" as const], priority: 1 } };
  return { content: [data, notice], _meta: { "claimboard/untrusted": marks } };
}

export function success(value: Record<string, unknown>): CallToolResult {
  return { ...marked(value), structuredContent: value };
}

/** No structuredContent: a client checks that against the tool's output schema. */
export function refusal(error: ToolError): CallToolResult {
  const { code, message, field, task, retryAfter } = error;
  const body = { error: { code, message, ...(field ? { field } : {}), ...(task ? { task } : {}), ...(retryAfter !== undefined ? { retryAfter } : {}) } };
  // The task a refusal carries is others' text like any task's: marked the same way.
  return { ...marked(body), isError: true };
}

/** A validation failure of the arguments, in the API's words (lib/tasks/core/engine.ts validationError). */
export const invalid = (error: EngineError): CallToolResult => refusal(error as ToolError);

/** Anything a client call threw: the API's refusal as it came, or (a bug) a generic one. */
export function fromThrown(error: unknown, log: (line: string) => void, tool: string): CallToolResult {
  if (error instanceof ClaimboardApiError) {
    return refusal({ code: error.code, message: error.message, field: error.field, task: error.task, retryAfter: error.retryAfter });
  }
  log(`[mcp] ${tool} failed: ${error instanceof Error ? error.message : String(error)}`);
  return refusal({ code: "internal", message: "Internal error" });
}
