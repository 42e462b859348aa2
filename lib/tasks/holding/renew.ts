import { sql } from "drizzle-orm";
import { instanceOf } from "../core/attempt";
import { refuseAtCeiling, withinCeiling } from "../claiming/ceiling";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { heartbeatInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { ownerTransition, transition } from "../core/transition";
import { ok } from "../core/types";
import { WORKERS } from "../core/standing";

const move = ownerTransition("renew");

/**
 * Heartbeat: the owner pushes lease_until forward by the claim's lease length. Only while
 * the lease is still valid — a lapsed lease may already be someone else's — and within
 * the queue's attempt ceiling. Not a transition: the version stays. Progress, when sent,
 * becomes the task's `progress` for this attempt.
 */
export const renew = defineOperation({
  name: "renew",
  who: WORKERS,
  input: heartbeatInput,
  async run(tx, input, { actor, clock, instance }) {
    const now = clock.now();
    const progress = input.progress !== undefined
      ? sql`, progress = ${JSON.stringify(input.progress)}::jsonb, progress_at = ${now}`
      : sql``;
    const changed = await transition(
      tx,
      input.taskId,
      sql`lease_until = ${now} + make_interval(secs => t.lease_seconds), updated_at = ${now} ${progress}`,
      move.guard(actor, input.version, now, withinCeiling(now)),
    );
    if (!changed) {
      const atCeiling = await refuseAtCeiling(tx, clock, input, actor, instance);
      if (atCeiling) return atCeiling;
      return explainMiss(tx, clock, move.expected(input, actor));
    }
    const { row } = changed;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "heartbeat", actorId: actor.id,
      payload: {
        version: row.version,
        status: row.status,
        leaseUntil: row.leaseUntil?.toISOString(),
        ...(input.progress !== undefined ? { progress: input.progress } : {}),
        ...instanceOf(instance),
      },
    }]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
