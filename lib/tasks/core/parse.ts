import { ZodError, type z } from "zod";
import type { EngineError } from "./types";

// An operation's input parsed into the contract's invalid_request. Pure, so it lives apart
// from the engine: `perform` uses it, and so do adapters that parse with no database behind
// them (the stdio MCP server), through lib/tasks/model.ts.

/** Like schema.safeParse, but input nested deep enough to exhaust the stack is refused, not thrown. */
export function safeParse<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { success: true; data: z.infer<S> } | { success: false; error: z.ZodError } {
  try {
    return schema.safeParse(input);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { success: false, error: new ZodError([{ code: "custom", path: [], message: "nests too deeply", input }]) };
  }
}

export function validationError(error: z.ZodError): EngineError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  const message = issue
    ? issue.code === "unrecognized_keys"
      ? `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`
      : `${field || "input"} ${issue.message.replace(/^Invalid input: /, "")}`
    : "Invalid input";
  return { code: "invalid_request", message, ...(field ? { field } : {}) };
}
