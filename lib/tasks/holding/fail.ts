import { sql, type SQL } from "drizzle-orm";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents, type NewEvent } from "../core/events";
import { failInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { endAttempt, ownerTransition, transition } from "../core/transition";
import { ok } from "../core/types";
import { handoffNote, instanceOf, setHandoff } from "../core/attempt";
import { WORKERS } from "../core/standing";
import { effectsLeftUnknown } from "../effects/ledger";

const move = ownerTransition("fail");

/** Longest retry backoff: retry_delay_seconds × 2^(n − 1) grows past any sensible wait by n ≈ 20. */
export const MAX_BACKOFF_SECONDS = 7 * 86_400;

/**
 * The retry backoff of a failure that requeues (docs/engine.md): not before now +
 * retry_delay_seconds × 2^(failure_count − 1), failure_count counted with this failure,
 * at most MAX_BACKOFF_SECONDS. No delay (0, the default) leaves notBefore empty.
 */
const backoff = (now: SQL) => sql`CASE
  WHEN t.failure_count + 1 >= q.max_failures OR q.retry_delay_seconds = 0 THEN NULL
  ELSE ${now} + make_interval(secs => least(q.retry_delay_seconds * power(2, t.failure_count), ${MAX_BACKOFF_SECONDS}))
END`;

/**
 * The owner reports a failed attempt: failure_count + 1, and back to queued — or, when
 * the count reaches the queue's max_failures (default 3), to the supervisors' inbox as
 * escalated instead of a further try. Like release, a recorded side effect leaves the
 * task needs_check. A hand-off note, when given, becomes the task's `handoff`.
 */
export const failTask = defineOperation({
  name: "fail",
  who: WORKERS,
  input: failInput,
  async run(tx, input, { actor, clock, instance }) {
    const note = input.handoff ? handoffNote(input.handoff, actor) : null;
    const changed = await transition(
      tx,
      input.taskId,
      sql`${endAttempt(
        sql`CASE WHEN t.failure_count + 1 >= q.max_failures THEN 'escalated' ELSE 'queued' END::task_status`,
        clock.now(),
      )}, failure_count = t.failure_count + 1, not_before = ${backoff(clock.now())} ${setHandoff(note, clock.now())}`,
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
