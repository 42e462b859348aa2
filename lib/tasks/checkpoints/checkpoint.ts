import { sql } from "drizzle-orm";
import { explainMiss, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { EVERYONE } from "../core/standing";
import { loadTask, toTasks } from "../core/task-row";
import { ownerTransition, transition } from "../core/transition";
import { fail, ok, type Checkpoint, type Result, type Task } from "../core/types";
import { instanceOf } from "../core/attempt";
import { listCheckpoints } from "../core/checkpoint";
import { progressMade } from "../holding/no-progress";
import { checkpointInput, listCheckpointsInput } from "./schemas";

const move = ownerTransition("checkpoint");

/**
 * POST /tasks/{id}/checkpoints: the holder of a started task records how far it got. An owner
 * write under the same fence as every other (the owner, a live lease, the version named, so the
 * current attempt only): a stale holder's checkpoint matches no row and is refused as any of its
 * writes is, before anything is written. Not a transition: the version stays, as a side effect's.
 * The row's new checkpoint_id is drawn in the guarded UPDATE, and the checkpoint's row is written
 * with it under the row lock that UPDATE holds: the task always names the latest.
 */
export const recordCheckpoint = defineOperation({
  name: "checkpoint",
  makes: ["checkpoint"],
  input: checkpointInput,
  async run(tx, input, { actor, clock, instance }): Promise<Result<{ checkpoint: Checkpoint; task: Task }>> {
    const now = clock.now();
    const changed = await transition(
      tx,
      input.taskId,
      sql`checkpoint_id = nextval(pg_get_serial_sequence('task_checkpoints', 'id')), updated_at = ${now}, ${progressMade}`,
      move.guard(actor, input.version, now),
    );
    if (!changed) {
      const task = await loadTask(tx, input.taskId);
      if (task?.status === "claimed" && task.owner?.id === actor.id && task.version === input.version) {
        return fail({ code: "invalid_transition", message: `Task ${task.id} is claimed, not started: start it before recording a checkpoint`, task });
      }
      const missed = await explainMiss(tx, clock, move.expected(input, actor));
      // No retry is recognised as done (a checkpoint adds no version): a miss is always a refusal.
      return missed.ok ? fail({ code: "invalid_transition", message: `Task ${input.taskId} cannot take a checkpoint now`, task: missed.value }) : missed;
    }
    const { row } = changed;
    const state = input.state === undefined ? null : JSON.stringify(input.state);
    // A step repeated within the attempt (a retry) replaces its state and becomes the latest.
    await tx.execute(sql`
      INSERT INTO task_checkpoints (id, task_id, attempt, step, state, by_id, at)
      VALUES (${row.checkpointId!.toString()}::bigint, ${input.taskId}::bigint, ${row.attempt}, ${input.step}, ${state}::jsonb, ${actor.id}::uuid, ${now})
      ON CONFLICT (task_id, attempt, step) DO UPDATE SET id = EXCLUDED.id, state = EXCLUDED.state, by_id = EXCLUDED.by_id, at = EXCLUDED.at`);
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "checkpointed", actorId: actor.id,
      payload: { version: row.version, status: row.status, step: input.step, attempt: row.attempt, checkpointId: row.checkpointId!.toString(), ...instanceOf(instance) },
    }]);
    const task = (await toTasks(tx, [row], actor))[0]!;
    return ok({ checkpoint: task.checkpoint!, task });
  },
});

/** GET /tasks/{id}/checkpoints: every attempt's steps, by attempt then step. */
export const taskCheckpointsList = defineOperation({
  name: "listCheckpoints",
  who: EVERYONE,
  input: listCheckpointsInput,
  async run(tx, input): Promise<Result<Checkpoint[]>> {
    if (!(await loadTask(tx, input.taskId))) return notFound(input.taskId);
    return ok(await listCheckpoints(tx, input.taskId));
  },
});

