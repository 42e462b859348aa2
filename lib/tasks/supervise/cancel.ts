import { sql } from "drizzle-orm";
import { escalateDependents } from "../authoring/graph";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { superviseInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { endAttempt, supervisorGuard, transition } from "../core/transition";
import { ok } from "../core/types";
import { effectsLeftUnknown } from "../effects/ledger";

// A supervisor drops a task for good (the machine's cancel row): before anyone claimed it, from
// the inbox, or while it is parked on a question or its budget (docs/budgets.md: "until a
// supervisor raises the limit or cancels"). A parked task's attempt ends with it — its owner
// cleared, its open intents unknown, its open question closed unanswered — so nothing of it
// is left waiting. What depends on it goes to the inbox.

const move = supervisorGuard("cancel");

export const cancel = defineOperation({
  name: "cancel",
  makes: ["cancel"],
  input: superviseInput,
  async run(tx, input, { actor, clock }) {
    const now = clock.now();
    const changed = await transition(tx, input.taskId, endAttempt(sql`'cancelled'::task_status`, now), move.guard(input.version));
    if (!changed) return explainMiss(tx, clock, move.expected(input, actor));
    const { row, previous } = changed;
    const parked = previous.status === "awaiting_input";
    if (parked) {
      await tx.execute(sql`UPDATE task_questions SET expired_at = ${now}
        WHERE task_id = ${input.taskId}::bigint AND answered_at IS NULL AND expired_at IS NULL`);
    }
    await appendEvents(tx, clock, [
      {
        taskId: row.id, queue: row.queue, type: "cancelled", actorId: actor.id,
        payload: { version: row.version, status: row.status, ...(input.reason ? { reason: input.reason } : {}), ...(parked ? { previousOwnerId: previous.ownerId } : {}) },
      },
      ...(parked && previous.sideEffectRecorded ? await effectsLeftUnknown(tx, [row]) : []),
    ]);
    await escalateDependents(tx, clock, actor, row.id);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
