import { sql } from "drizzle-orm";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { instanceOf } from "../core/attempt";
import { ackInput } from "./ack-body";
import { loadTask, toTasks } from "../core/task-row";
import { MOVES } from "../core/machine";
import { ownerTransition, transition } from "../core/transition";
import { fail, ok } from "../core/types";
import { withUnread } from "./unread";

// Input read before done (docs/leases.md): the holder acknowledges the comments it read, up to
// one comment's event. What is left unread is the first comment after it by anyone but the
// holder (null: nothing), so a comment that arrived since stays unread.

const move = ownerTransition("ack");

/**
 * The holder acknowledges others' comments up to `eventId` (a `commented` event of the task).
 * One guarded UPDATE moves unread_from past it, and an `acknowledged` event records it, naming
 * the event; an ack that moves nothing (a retry, nothing unread) writes nothing and answers the task.
 */
export const acknowledge = defineOperation({
  name: "acknowledge",
  makes: ["ack"],
  input: ackInput,
  async run(tx, input, { actor, clock, instance }) {
    const [comment] = await tx.execute<{ id: string }>(sql`
      SELECT id::text FROM task_events WHERE task_id = ${input.taskId}::bigint AND id = ${input.eventId}::bigint AND type = 'commented'`);
    if (!comment) {
      return fail({ code: "invalid_request", field: "eventId", message: `Event ${input.eventId} is no comment on task ${input.taskId}: name an \`unread\` item's eventId` });
    }
    const after = sql`(SELECT min(e.id) FROM task_events e WHERE e.task_id = t.id AND e.type = 'commented'
      AND e.id > ${input.eventId}::bigint AND e.actor_id <> t.owner_id)`;
    const changed = await transition(
      tx, input.taskId,
      sql`unread_from = ${after}`,
      move.guard(actor, input.version, clock.now(), sql`t.unread_from IS NOT NULL AND t.unread_from <= ${input.eventId}::bigint`),
    );
    if (!changed) {
      // Nothing up to eventId was unread: the caller's own task at its version is an ack with nothing to do.
      const task = await loadTask(tx, input.taskId);
      const same = task && task.owner?.id === actor.id && task.version === input.version && MOVES.ack.from.includes(task.status);
      return same ? ok(await withUnread(tx, task, actor)) : explainMiss(tx, clock, move.expected(input, actor));
    }
    const { row } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "acknowledged", actorId: actor.id,
      payload: { version: row.version, status: row.status, eventId: input.eventId, ...instanceOf(instance) },
    }]);
    return ok(await withUnread(tx, (await toTasks(tx, [row], actor))[0]!, actor));
  },
});
