import { z } from "zod";
import { defineOperation } from "../core/engine";
import { oneEventWrite } from "../core/events";
import { reviewBody, taskId, version } from "../core/schemas";
import { SUPERVISORS } from "../core/standing";
import { ok, type EngineError, type Task } from "../core/types";
import { distinctTasks } from "../supervise/supervise-many";
import { review } from "./review";

/** The most in_review tasks one bulk review decides (the inbox lists at most this many). */
export const REVIEW_MANY_LIMIT = 500;

export const reviewManyInput = z.strictObject({
  decision: reviewBody.shape.decision,
  /** One note for every task of the batch: each task's review note (a reject's: the next claimant's hand-off). */
  note: reviewBody.shape.note,
  tasks: z
    .array(z.strictObject({ taskId, version, digest: reviewBody.shape.digest }))
    .min(1, "must list at least one task")
    .max(REVIEW_MANY_LIMIT, `must list at most ${REVIEW_MANY_LIMIT} tasks`)
    .superRefine(distinctTasks),
});

export type ReviewManyResult = { taskId: string; ok: true; task: Task } | { taskId: string; ok: false; error: EngineError };

/**
 * The inbox's bulk Approve / Reject over in_review tasks, in one transaction with one event
 * INSERT, as superviseMany is for escalated ones. Each item is the single-task review
 * operation (review.ts), so the reviewer rule is decided there and nowhere else: a task the
 * supervisor submitted or held an attempt of is refused in its own result (403 self_review,
 * with the engine's sentence), as is a stale version or a digest that is no longer the
 * submission's; the rest are decided. A refused review writes nothing (it returns before its
 * guarded UPDATE, or that UPDATE matched no row), so no savepoint per item is needed.
 * Items are decided in ascending id order (overlapping batches lock in one order); results
 * come back in the order given.
 */
export const reviewMany = defineOperation({
  name: "reviewMany",
  who: SUPERVISORS,
  input: reviewManyInput,
  async run(tx, input, ctx) {
    const ordered = [...input.tasks].sort((a, b) => (BigInt(a.taskId) < BigInt(b.taskId) ? -1 : 1));
    const byId = new Map<string, ReviewManyResult>();
    await oneEventWrite(tx, ctx.clock, async () => {
      for (const item of ordered) {
        const result = await review.run(tx, { ...item, decision: input.decision, ...(input.note ? { note: input.note } : {}) }, ctx);
        byId.set(item.taskId, result.ok ? { taskId: item.taskId, ok: true, task: result.value } : { taskId: item.taskId, ok: false, error: result.error });
      }
    });
    return ok(input.tasks.map((item) => byId.get(item.taskId)!));
  },
});
