import { editTask } from "../authoring/edit";
import { defineOperation, Rollback } from "../core/engine";
import { queueName, superviseInput } from "../core/schemas";
import { ok, type Result, type Task } from "../core/types";
import { requeue } from "./supervise";

/** Requeue to another queue: the requeue's fields and the queue it goes to. */
export const requeueToInput = superviseInput.extend({ queue: queueName });

/**
 * "Requeue to…" from the inbox: an escalated task moves to another queue (an edit, so the
 * history says from where to where) and is requeued there, in one transaction — both or
 * neither. The move is editTask's (open queues only), the requeue is the machine's.
 */
export const requeueTo = defineOperation({
  name: "requeueTo",
  makes: ["edit", "requeue"],
  input: requeueToInput,
  async run(tx, input, ctx): Promise<Result<Task>> {
    const { queue, reason, ...at } = input;
    const moved = await editTask.run(tx, { ...at, queue }, ctx);
    if (!moved.ok) return moved;
    const requeued = await requeue.run(tx, { taskId: at.taskId, version: moved.value.version, ...(reason ? { reason } : {}) }, ctx);
    if (!requeued.ok) throw new Rollback(requeued);
    return ok(requeued.value as Task);
  },
});
