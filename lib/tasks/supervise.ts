import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import type { EventType, TaskStatus } from "@/db/schema";
import type { Clock } from "./clock";
import { escalateDependents, unblockDependents } from "./graph";
import { explainMiss } from "./conflicts";
import { defineOperation } from "./engine";
import { appendEvents } from "./events";
import { superviseInput } from "./schemas";
import { toTasks } from "./task-row";
import { transition } from "./transition";
import { ok, type ActorRef } from "./types";
import { SUPERVISORS } from "./standing";

// The escalation inbox's decisions: supervisors only (`who`, checked by perform).

/** What else the decision changes in its transaction: the work graph (lib/tasks/graph.ts). */
type Consequence = (tx: Tx, clock: Clock, actor: ActorRef, taskId: bigint) => Promise<void>;

function supervisorTransition(name: string, verb: string, from: TaskStatus[], type: EventType, set: SQL, then?: Consequence) {
  return defineOperation({
    name,
    who: SUPERVISORS,
    input: superviseInput,
    async run(tx, input, { actor, clock }) {
      const now = clock.now();
      const changed = await transition(
        tx,
        input.taskId,
        sql`${set}, version = t.version + 1, updated_at = ${now}`,
        sql`t.status IN (${sql.join(from.map((status) => sql`${status}::task_status`), sql`, `)})
            AND t.version = ${input.version}`,
      );
      if (!changed) {
        return explainMiss(tx, clock, {
          taskId: input.taskId, version: input.version, actor, verb, from, doneBy: [type], ownerOnly: false,
        });
      }
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
export const requeue = supervisorTransition("requeue", "requeue", ["escalated"], "requeued",
  sql`status = 'queued', failure_count = 0, not_before = NULL`);

/** A supervisor settled it by hand: done, so its dependents stop waiting for it. */
export const resolve = supervisorTransition("resolve", "resolve", ["escalated"], "resolved",
  sql`status = 'done'`, (tx, clock, actor, id) => unblockDependents(tx, clock, actor, [id]));

/** Dropped for good; also possible before anyone claimed it. What waits for it goes to the inbox. */
export const cancel = supervisorTransition("cancel", "cancel", ["escalated", "queued"], "cancelled",
  sql`status = 'cancelled'`, escalateDependents);
