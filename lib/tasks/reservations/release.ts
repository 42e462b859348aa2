import { sql } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import type { TaskRow } from "@/db/schema";
import { LIMITS } from "@/lib/limits";
import type { Clock } from "../core/clock";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents, SYSTEM_ACTOR_ID } from "../core/events";
import { superviseInput } from "../core/schemas";
import { toTasks } from "../core/task-row";
import { supervisorGuard, transition } from "../core/transition";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import type { Reservation } from "../core/reservation";

// A parked task keeps what it reserves (held.ts): its owner waits on a person and comes back to
// the same files. An agent that reserved broad prefixes and asked would block every task that
// reserves under them until its question's deadline (up to 7 days). So a parked task's
// reservations are bounded: they end when the question expires (the task escalates), at the
// latest LIMITS.parkedReservationHoldSeconds after the ask (the questions' background pass),
// and whenever a supervisor releases them. Released, they are gone from the task — an
// `edited` event of `reserves` to [], as an edit would write — so the answer cannot bring
// back a holding that conflicts with one taken meanwhile. docs/reservations.md.

const releasing = supervisorGuard("releaseReservations");

/** The edited event of a release: the reservations the task had, now none, and why. */
function released(row: TaskRow, from: Reservation[], actorId: string, reason: string) {
  return {
    taskId: row.id, queue: row.queue, type: "edited" as const, actorId,
    payload: { version: row.version, status: row.status, changes: { reserves: { from, to: [] } }, reason },
  };
}

/** POST /tasks/{id}/release-reservations: a supervisor frees what a parked task reserves (version named). */
export const releaseReservations = defineOperation({
  name: "releaseReservations",
  makes: ["releaseReservations"],
  input: superviseInput,
  async run(tx, input, { actor, clock }): Promise<Result<Task>> {
    const [before] = await tx.execute<{ reserves: Reservation[] | null }>(sql`SELECT reserves FROM task_state WHERE id = ${input.taskId}::bigint FOR UPDATE`);
    const changed = before?.reserves
      ? await transition(tx, input.taskId, sql`reserves = NULL, version = t.version + 1, updated_at = ${clock.now()}`, sql`${releasing.guard(input.version)} AND t.reserves IS NOT NULL`)
      : null;
    if (!changed) {
      const missed = await explainMiss(tx, clock, releasing.expected(input, actor));
      if (!missed.ok) return missed;
      // Parked, at that version, and reserving nothing: the page offers no release then either.
      return fail({ code: "invalid_transition", message: `Task ${input.taskId} reserves nothing: there is nothing to release`, task: missed.value });
    }
    const reason = input.reason ?? `Released by ${actor.name} while the task waits on a question`;
    await appendEvents(tx, clock, [released(changed.row, before!.reserves!, actor.id, reason)]);
    return ok((await toTasks(tx, [changed.row], actor as ActorRef))[0]!);
  },
});

/**
 * The bound: every parked task whose open question was asked at least the hold ago releases
 * what it reserves (the oldest `limit`), as the system. Returns how many it released.
 */
export async function releaseOverdueReservations(tx: Tx, clock: Clock, limit = 100): Promise<number> {
  const now = clock.now();
  const due = await tx.execute<{ id: string; reserves: Reservation[] }>(sql`
    SELECT t.id::text, t.reserves FROM task_state t
    WHERE t.reserving_status = 'awaiting_input'
      AND EXISTS (SELECT 1 FROM task_questions x WHERE x.task_id = t.id AND x.attempt = t.attempt AND x.answered_at IS NULL AND x.expired_at IS NULL
                    AND x.asked_at + make_interval(secs => ${LIMITS.parkedReservationHoldSeconds}) <= ${now})
    ORDER BY t.id LIMIT ${limit}
    FOR UPDATE SKIP LOCKED`);
  let count = 0;
  for (const task of due) {
    const changed = await transition(tx, task.id, sql`reserves = NULL, version = t.version + 1, updated_at = ${now}`, sql`t.status = 'awaiting_input' AND t.reserves IS NOT NULL`);
    if (!changed) continue;
    const hours = LIMITS.parkedReservationHoldSeconds / 3600;
    await appendEvents(tx, clock, [released(changed.row, task.reserves, SYSTEM_ACTOR_ID, `Parked on a question for ${hours} h: its reservations are released so other work may go on`)]);
    count += 1;
  }
  return count;
}

/** One background pass (a transaction of its own), beside the questions' deadlines (loop.ts). */
export const releaseOverdueReservationsPass = (db: Db, clock: Clock) => db.transaction((tx) => releaseOverdueReservations(tx, clock));
