import { sql } from "drizzle-orm";
import { explainMiss } from "./conflicts";
import { defineOperation } from "./engine";
import { appendEvents, type NewEvent } from "./events";
import { startInput } from "./schemas";
import { toTasks } from "./task-row";
import { transition } from "./transition";
import { ok } from "./types";
import { WORKERS } from "./standing";

/**
 * Owner only, while the lease is valid. A needs_check task starts only with
 * confirmCheck: the caller says it looked at what the lapsed attempt began.
 */
export const start = defineOperation({
  name: "start",
  who: WORKERS,
  input: startInput,
  async run(tx, input, { actor, clock }) {
    const now = clock.now();
    const confirm = input.confirmCheck ?? false;
    const changed = await transition(
      tx,
      input.taskId,
      sql`status = 'started', needs_check = false, version = t.version + 1, updated_at = ${now}`,
      sql`t.status = 'claimed' AND t.owner_id = ${actor.id}::uuid AND t.version = ${input.version}
          AND t.lease_until > ${now} AND (NOT t.needs_check OR ${confirm}::boolean)`,
    );
    if (!changed) {
      return explainMiss(tx, clock, {
        taskId: input.taskId, version: input.version, actor, verb: "start",
        from: ["claimed"], doneBy: ["started"], requiresLease: true, confirmCheck: confirm,
      });
    }
    const { row, previous } = changed;
    const event = (type: NewEvent["type"]): NewEvent => ({
      taskId: row.id, queue: row.queue, type, actorId: actor.id, payload: { version: row.version, status: row.status },
    });
    await appendEvents(tx, clock, previous.needsCheck ? [event("check_confirmed"), event("started")] : [event("started")]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
