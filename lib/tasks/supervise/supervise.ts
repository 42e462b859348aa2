import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import type { Clock } from "../core/clock";
import { unblockDependents } from "../authoring/graph";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { superviseInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { MOVES, type SupervisorMove } from "../core/machine";
import { supervisorGuard, transition } from "../core/transition";
import { ok, type ActorRef } from "../core/types";

// The escalation inbox's decisions: supervisors only (`who`, checked by perform).

/** What else the decision changes in its transaction: the work graph (lib/tasks/authoring/graph.ts). */
type Consequence = (tx: Tx, clock: Clock, actor: ActorRef, taskId: bigint) => Promise<void>;

/** A supervisor's decision: the guard, the expectation and the event come from its row of the machine. */
function supervisorTransition(name: Exclude<SupervisorMove, "forceRelease" | "raiseBudget" | "cancel" | "releaseReservations">, also: SQL | null, then?: Consequence) {
  const move = supervisorGuard(name);
  const type = MOVES[name].events[0];
  const set = sql`${sql.raw(`status = '${MOVES[name].to}'`)}${also ? sql`, ${also}` : sql``}`;
  return defineOperation({
    name,
    makes: [name],
    input: superviseInput,
    async run(tx, input, { actor, clock }) {
      const now = clock.now();
      const changed = await transition(
        tx,
        input.taskId,
        sql`${set}, version = t.version + 1, updated_at = ${now}`,
        move.guard(input.version),
      );
      if (!changed) return explainMiss(tx, clock, move.expected(input, actor));
      const { row } = changed;
      await appendEvents(tx, clock, [{
        taskId: row.id, queue: row.queue, type, actorId: actor.id,
        payload: { version: row.version, status: row.status, ...(input.reason ? { reason: input.reason } : {}) },
      }]);
      await then?.(tx, clock, actor, row.id);
      return ok((await toTasks(tx, [row], actor))[0]!);
    },
  });
}

/** Back in line with a clean slate: failure_count resets, and no backoff is left to wait out. */
export const requeue = supervisorTransition("requeue", sql`failure_count = 0, not_before = NULL`);

/** A supervisor settled it by hand: done, so its dependents stop waiting for it. */
export const resolve = supervisorTransition("resolve", null, (tx, clock, actor, id) => unblockDependents(tx, clock, actor, [id]));

/** Dropped for good: lib/tasks/supervise/cancel.ts (it may end a parked attempt). */
export { cancel } from "./cancel";
