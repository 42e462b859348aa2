import { sql } from "drizzle-orm";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents, type NewEvent } from "../core/events";
import { failInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { endAttempt, ownerTransition, transition } from "../core/transition";
import { ok } from "../core/types";
import { handoffNote, instanceOf, setHandoff } from "../core/attempt";
import { effectsLeftUnknown } from "../effects/ledger";
import { countStrike, strikeStatus } from "../core/strike";

const move = ownerTransition("fail");


/**
 * The owner reports a failed attempt: failure_count + 1, and back to queued — or, when
 * the count reaches the queue's max_failures (default 3), to the supervisors' inbox as
 * escalated instead of a further try. Like release, a recorded side effect leaves the
 * task needs_check. A hand-off note, when given, becomes the task's `handoff`.
 */
export const failTask = defineOperation({
  name: "fail",
  makes: ["fail"],
  input: failInput,
  async run(tx, input, { actor, clock, instance }) {
    const note = input.handoff ? handoffNote(input.handoff, actor) : null;
    const changed = await transition(
      tx,
      input.taskId,
      sql`${endAttempt(strikeStatus, clock.now())}, ${countStrike(clock.now())} ${setHandoff(note, clock.now())}`,
      move.guard(actor, input.version, clock.now()),
    );
    if (!changed) return explainMiss(tx, clock, move.expected(input, actor));
    const { row, previous } = changed;
    const event = (type: "failed" | "escalated"): NewEvent => ({
      taskId: row.id, queue: row.queue, type, actorId: actor.id,
      payload: {
        version: row.version, status: row.status, reason: input.reason, failureCount: row.failureCount, needsCheck: row.needsCheck,
        notBefore: row.notBefore?.toISOString() ?? null,
        ...(note && type === "failed" ? { handoff: note } : {}), ...instanceOf(instance),
      },
    });
    const unknown = previous.sideEffectRecorded ? await effectsLeftUnknown(tx, [row]) : [];
    await appendEvents(tx, clock, [...(row.status === "escalated" ? [event("failed"), event("escalated")] : [event("failed")]), ...unknown]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
