import { sql } from "drizzle-orm";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { sideEffectInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { ownerTransition, transition } from "../core/transition";
import { ok } from "../core/types";
import { WORKERS } from "../core/standing";

const move = ownerTransition("sideEffect");

/**
 * The owner says an external action is about to begin in this attempt. Should the lease
 * lapse afterwards, the next claimant gets the task needs_check. Requires a valid lease:
 * a stale owner must not begin anything. Not a transition: the version stays.
 */
export const recordSideEffect = defineOperation({
  name: "recordSideEffect",
  who: WORKERS,
  input: sideEffectInput,
  async run(tx, input, { actor, clock }) {
    const now = clock.now();
    const changed = await transition(
      tx,
      input.taskId,
      sql`side_effect_recorded = true, updated_at = ${now}`,
      move.guard(actor, input.version, now),
    );
    if (!changed) return explainMiss(tx, clock, move.expected(input, actor));
    const { row } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "side_effect", actorId: actor.id,
      payload: { version: row.version, status: row.status, description: input.description },
    }]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
