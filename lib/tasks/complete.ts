import { sql } from "drizzle-orm";
import { explainMiss } from "./conflicts";
import { defineOperation } from "./engine";
import { appendEvents } from "./events";
import { unblockDependents } from "./graph";
import { completeInput } from "./schemas";
import { toTasks } from "./task-row";
import { transition } from "./transition";
import { ok } from "./types";
import { instanceOf } from "./attempt";

/**
 * Owner only, from started. Allowed after the lease lapsed as long as nobody reclaimed
 * the task: state, owner and version still match, so the work is still this owner's.
 * The owner stays on the done task as the one who completed it.
 */
export const complete = defineOperation({
  name: "complete",
  input: completeInput,
  async run(tx, input, { actor, clock, instance }) {
    const now = clock.now();
    const changed = await transition(
      tx,
      input.taskId,
      sql`status = 'done', lease_until = NULL, lease_seconds = NULL, side_effect_recorded = false,
          version = t.version + 1, updated_at = ${now}`,
      sql`t.status = 'started' AND t.owner_id = ${actor.id}::uuid AND t.version = ${input.version}`,
    );
    if (!changed) {
      return explainMiss(tx, clock, {
        taskId: input.taskId, version: input.version, actor, verb: "complete",
        from: ["started"], doneBy: ["completed"],
      });
    }
    const { row } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "completed", actorId: actor.id,
      payload: { version: row.version, status: row.status, ...(input.result !== undefined ? { result: input.result } : {}), ...instanceOf(instance) },
    }]);
    await unblockDependents(tx, clock, actor, [row.id]); // its dependents are claimable when this commits
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
