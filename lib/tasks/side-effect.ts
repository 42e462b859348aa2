import { sql } from "drizzle-orm";
import { explainMiss } from "./conflicts";
import { defineOperation } from "./engine";
import { appendEvents } from "./events";
import { sideEffectInput } from "./schemas";
import { toTasks } from "./task-row";
import { transition } from "./transition";
import { ok } from "./types";
import { WORKERS } from "./standing";

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
      sql`t.status IN ('claimed', 'started') AND t.owner_id = ${actor.id}::uuid
          AND t.version = ${input.version} AND t.lease_until > ${now}`,
    );
    if (!changed) {
      return explainMiss(tx, clock, {
        taskId: input.taskId, version: input.version, actor, verb: "record a side effect on",
        from: ["claimed", "started"], doneBy: [], requiresLease: true,
      });
    }
    const { row } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "side_effect", actorId: actor.id,
      payload: { version: row.version, status: row.status, description: input.description },
    }]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
