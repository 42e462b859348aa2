import { describe, expect, it } from "vitest";
import { LIMITS } from "./limits";
import { commentInput, createTaskInput, failInput, claimBatchInput } from "./tasks/core/schemas";

// The engine's schemas enforce exactly the limits the forms and tool descriptions state.
const at = (n: number) => "x".repeat(n);

describe("LIMITS are the schemas' limits", () => {
  it("title, description and priority on create", () => {
    expect(createTaskInput.safeParse({ title: at(LIMITS.title) }).success).toBe(true);
    expect(createTaskInput.safeParse({ title: at(LIMITS.title + 1) }).success).toBe(false);
    expect(createTaskInput.safeParse({ title: "t", description: at(LIMITS.description) }).success).toBe(true);
    expect(createTaskInput.safeParse({ title: "t", description: at(LIMITS.description + 1) }).success).toBe(false);
    expect(createTaskInput.safeParse({ title: "t", priority: LIMITS.priority.max }).success).toBe(true);
    expect(createTaskInput.safeParse({ title: "t", priority: LIMITS.priority.max + 1 }).success).toBe(false);
    expect(createTaskInput.safeParse({ title: "t", priority: LIMITS.priority.min - 1 }).success).toBe(false);
  });

  it("comments, reasons and hand-offs", () => {
    expect(commentInput.safeParse({ taskId: "1", body: at(LIMITS.comment) }).success).toBe(true);
    expect(commentInput.safeParse({ taskId: "1", body: at(LIMITS.comment + 1) }).success).toBe(false);
    const fail = (reason: string, handoff?: object) => failInput.safeParse({ taskId: "1", version: 1, reason, handoff }).success;
    expect(fail(at(LIMITS.reason))).toBe(true);
    expect(fail(at(LIMITS.reason + 1))).toBe(false);
    expect(fail("r", { summary: at(LIMITS.handoffSummary) })).toBe(true);
    expect(fail("r", { summary: at(LIMITS.handoffSummary + 1) })).toBe(false);
    expect(fail("r", { summary: "s", artifacts: Array(LIMITS.artifacts + 1).fill("a") })).toBe(false);
    expect(fail("r", { summary: "s", artifacts: [at(LIMITS.artifact + 1)] })).toBe(false);
  });

  it("batch size", () => {
    expect(claimBatchInput.safeParse({ limit: LIMITS.batch }).success).toBe(true);
    expect(claimBatchInput.safeParse({ limit: LIMITS.batch + 1 }).success).toBe(false);
  });
});
