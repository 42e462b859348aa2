import { z } from "zod";
import { defineOperation } from "../core/engine";
import { oneEventWrite } from "../core/events";
import { taskId, text, version } from "../core/schemas";
import { cancel, requeue, resolve } from "./supervise";
import { ok, type EngineError, type Task } from "../core/types";

/** The inbox's bulk cap: the most escalated tasks it lists for one filter (lib/tasks/supervise/inbox.ts). */
export const SUPERVISE_MANY_LIMIT = 500;

const decisions = { requeue, resolve, cancel } as const;
export type SuperviseDecision = keyof typeof decisions;

/** A bulk decision names each task once: a repeat is refused with the path of the second. */
export function distinctTasks(items: { taskId: string }[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.taskId)) ctx.addIssue({ code: "custom", path: [index, "taskId"], message: `repeats task ${item.taskId}` });
    seen.add(item.taskId);
  });
}

export const superviseManyInput = z.strictObject({
  action: z.enum(["requeue", "resolve", "cancel"], "must be requeue, resolve or cancel"),
  /** One note for every task of the batch, written in each task's event. */
  reason: text(2000).optional(),
  tasks: z
    .array(z.strictObject({ taskId, version }))
    .min(1, "must list at least one task")
    .max(SUPERVISE_MANY_LIMIT, `must list at most ${SUPERVISE_MANY_LIMIT} tasks`)
    .superRefine(distinctTasks),
});

export type SuperviseManyResult = { taskId: string; ok: true; task: Task } | { taskId: string; ok: false; error: EngineError };

/**
 * One supervisor decision over many tasks in one transaction, one event INSERT and one
 * NOTIFY. Each item runs the single-task operation of supervise.ts (its rules are not
 * copied here), fenced by its own version: a stale or already-decided item is reported in
 * its own result and the rest are done. No savepoint per item is needed because a refused
 * decision writes nothing — its guarded UPDATE matched no row, and the work-graph
 * consequences only follow a decision that changed its task.
 *
 * Items are decided in ascending id order, so two supervisors' overlapping batches lock
 * rows in the same order and cannot deadlock; results come back in the order given.
 */
export const superviseMany = defineOperation({
  name: "superviseMany",
  makes: ["requeue", "resolve", "cancel"],
  input: superviseManyInput,
  async run(tx, input, ctx) {
    const op = decisions[input.action];
    const ordered = [...input.tasks].sort((a, b) => (BigInt(a.taskId) < BigInt(b.taskId) ? -1 : 1));
    const byId = new Map<string, SuperviseManyResult>();
    await oneEventWrite(tx, ctx.clock, async () => {
      for (const item of ordered) {
        const result = await op.run(tx, { ...item, ...(input.reason ? { reason: input.reason } : {}) }, ctx);
        byId.set(item.taskId, result.ok ? { taskId: item.taskId, ok: true, task: result.value } : { taskId: item.taskId, ok: false, error: result.error });
      }
    });
    return ok(input.tasks.map((item) => byId.get(item.taskId)!));
  },
});
