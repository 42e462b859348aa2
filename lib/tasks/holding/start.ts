import { sql } from "drizzle-orm";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents, type NewEvent } from "../core/events";
import { startInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { ownerTransition, transition } from "../core/transition";
import { ok } from "../core/types";
import { sideEffectsConfirmed } from "../effects/ledger";

const move = ownerTransition("start");

/**
 * Owner only, while the lease is valid. A needs_check task starts only with
 * confirmCheck: the caller says it looked at what the lapsed attempt began.
 */
export const start = defineOperation({
  name: "start",
  makes: ["start"],
  input: startInput,
  async run(tx, input, { actor, clock }) {
    const now = clock.now();
    const confirm = input.confirmCheck ?? false;
    const changed = await transition(
      tx,
      input.taskId,
      sql`status = 'started', needs_check = false, version = t.version + 1, updated_at = ${now}`,
      move.guard(actor, input.version, now, sql`(NOT t.needs_check OR ${confirm}::boolean)`),
    );
    if (!changed) return explainMiss(tx, clock, move.expected(input, actor, { confirmCheck: confirm }));
    const { row, previous } = changed;
    const event = (type: "check_confirmed" | "started"): NewEvent => ({
      taskId: row.id, queue: row.queue, type, actorId: actor.id, payload: { version: row.version, status: row.status },
    });
    await appendEvents(tx, clock, previous.needsCheck ? [event("check_confirmed"), event("started")] : [event("started")]);
    if (previous.needsCheck) await sideEffectsConfirmed(tx, clock, actor, input.taskId);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
