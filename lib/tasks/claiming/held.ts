import { sql } from "drizzle-orm";
import { z } from "zod";
import { refuseAtCeiling, withinCeiling } from "./ceiling";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { rawToTaskRow, toTasks, withContent } from "../core/task-row";
import { ok, type Task } from "../core/types";
import { WORKERS } from "../core/standing";
import { HELD } from "../core/machine";
import { statusIn } from "../core/transition";

// A person's lease follows their presence: while they use a page of the board, the browser
// renews every lease they hold in one call, each once a third of it has passed. One transaction
// for all of them: the rows are locked in id order and a row another transaction holds is
// skipped (renewed next time), so two open pages renewing at once neither wait nor deadlock.

export const heldLeasesInput = z.strictObject({ renew: z.boolean() });

export interface HeldLease {
  task: Task;
  /** The claim's lease length: the browser renews at a third of it. */
  leaseSeconds: number;
  /** A renewal of this attempt met the queue's attempt ceiling: it will not be renewed again. */
  attemptLimited: boolean;
}

/** Every task the caller holds (lapsed leases included), after renewing the live ones when asked. */
export const heldLeases = defineOperation({
  name: "heldLeases",
  who: WORKERS,
  input: heldLeasesInput,
  async run(tx, input, { actor, clock, instance }) {
    const now = clock.now();
    const renewedIds = new Set<string>();
    if (input.renew) {
      const renewed = await tx.execute<Record<string, unknown>>(withContent(sql`
        WITH mine AS MATERIALIZED (
          -- Found in the held set by owner (task_held_owner), locked and rechecked on task_state.
          SELECT s.id FROM task_held h JOIN task_state s ON s.id = h.id
          WHERE h.owner_id = ${actor.id}::uuid
            AND s.owner_id = ${actor.id}::uuid AND ${statusIn(HELD, "s")} AND s.lease_until > ${now}
            -- Due: RENEW_FRACTION (lib/cadence.ts, a third) of the lease has passed since the claim or the last renewal. However
            -- many pages ask, a lease is renewed once a third, and a fresh one not at all.
            AND s.lease_until <= ${now} + make_interval(secs => s.lease_seconds * 2.0 / 3)
          ORDER BY s.id
          FOR UPDATE OF s SKIP LOCKED
        )
        UPDATE task_state t SET lease_until = ${now} + make_interval(secs => t.lease_seconds), updated_at = ${now}
        FROM mine m, queues q
        WHERE t.id = m.id AND q.name = t.queue AND ${withinCeiling(now)}
        RETURNING t.*`));
      const rows = renewed.map(rawToTaskRow).sort((a, b) => Number(a.id - b.id));
      for (const row of rows) renewedIds.add(row.id.toString());
      await appendEvents(tx, clock, rows.map((row) => ({
        taskId: row.id, queue: row.queue, type: "heartbeat" as const, actorId: actor.id,
        payload: { version: row.version, status: row.status, leaseUntil: row.leaseUntil?.toISOString(), presence: true },
      })));
    }
    const held = await tx.execute<Record<string, unknown>>(sql`
      SELECT t.* FROM task_held h JOIN tasks t ON t.id = h.id WHERE h.owner_id = ${actor.id}::uuid ORDER BY t.id`);
    const rows = held.map(rawToTaskRow);
    if (input.renew) {
      // A live lease left unrenewed met its ceiling: mark the attempt as a heartbeat would.
      for (const row of rows.filter((r) => !r.attemptLimited && !renewedIds.has(r.id.toString()))) {
        const refused = await refuseAtCeiling(tx, clock, { taskId: row.id.toString(), version: row.version }, actor, instance);
        if (refused) row.attemptLimited = true;
      }
    }
    const tasks = await toTasks(tx, rows, actor);
    return ok(rows.map((row, i): HeldLease => ({ task: tasks[i]!, leaseSeconds: row.leaseSeconds ?? 0, attemptLimited: row.attemptLimited })));
  },
});
