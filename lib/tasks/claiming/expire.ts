import { sql } from "drizzle-orm";
import { queues } from "@/db/schema";
import { readQueueState, reclaimBudget, tripExpirySpike } from "./breaker";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { sweepInput } from "../core/schemas";
import { rawToTaskRow, withContent } from "../core/task-row";
import { ok } from "../core/types";
import { lapseEvent, lapsedOf, lapseReturning, lapseSet } from "../core/lapse";
import { strikeCappedLapses } from "./ceiling";
import { SUPERVISORS } from "../core/standing";
import { lapseCutoff } from "./lock-delay";
import { personGraceHolds } from "./person-grace";
import { recheck, statusIn } from "../core/transition";
import { HELD } from "../core/machine";
import { effectsLeftUnknown } from "../effects/ledger";

/** At most this many expiries per queue per sweep, to keep one transaction small. */
export const SWEEP_BATCH = 1000;

export interface SweepResult {
  expired: number;
  /** Queues whose breaker stopped this sweep (tripped now or before). */
  stopped: string[];
}

/**
 * Materialises lapsed leases (→ queued, needs_check where the attempt recorded a side
 * effect) for callers that want it: a supervisor's button, a cron a user adds. Nothing
 * needs it — claims reclaim lazily. Idempotent: a second sweep finds nothing to do.
 * It honours the breaker like claim-next, and the expiry past the threshold trips it.
 */
export const sweepExpiredLeases = defineOperation({
  name: "sweepExpiredLeases",
  who: SUPERVISORS,
  input: sweepInput,
  async run(tx, input, { clock }) {
    const names = input.queue
      ? [input.queue]
      : (await tx.select({ name: queues.name }).from(queues).orderBy(queues.name)).map((q) => q.name);
    const result: SweepResult = { expired: 0, stopped: [] };

    for (const name of names) {
      const state = await readQueueState(tx, name, clock);
      if (!state?.hasExpired) continue;
      // Attempts that met their ceiling lapse as strikes; they count as expiries for the breaker too.
      result.expired += (await strikeCappedLapses(tx, clock, state.queue)).length;
      const budget = await reclaimBudget(tx, state, clock);
      if (budget === 0) {
        result.stopped.push(name);
        continue;
      }
      // One row past the budget tells whether this sweep would exceed the threshold.
      const limit = Math.min(budget + 1, SWEEP_BATCH);
      const cutoff = lapseCutoff(clock, state.queue.lockDelaySeconds);
      const rows = await tx.execute<Record<string, unknown>>(withContent(sql`
        WITH lapsed AS MATERIALIZED (
          -- Walked in the held set's leases, locked and rechecked on task_state (recheck, claim-rows.ts).
          SELECT s.id, s.owner_id, s.priority, s.created_at, s.progress, s.progress_at, s.side_effect_recorded
          FROM task_lease lease JOIN task_held held ON held.id = lease.id JOIN task_state s ON s.id = lease.id
          WHERE lease.queue = ${name} AND lease.lease_until <= ${cutoff}
            AND ${recheck(sql`${statusIn(HELD, "s")} AND s.lease_until <= ${cutoff}`)}
            AND NOT ${personGraceHolds(clock, "s")}
          ORDER BY held.priority DESC, held.created_at, held.id
          LIMIT ${limit}
          FOR UPDATE OF s SKIP LOCKED
        ), chosen AS (
          SELECT * FROM lapsed ORDER BY priority DESC, created_at, id LIMIT ${Math.min(budget, SWEEP_BATCH)}
        )
        UPDATE task_state t SET ${lapseSet(sql`'queued'`, "c", clock.now())}
        FROM chosen c
        WHERE t.id = c.id
        RETURNING t.*, ${lapseReturning("c")}, (SELECT count(*) FROM lapsed)::int AS found`));
      const found = Number(rows[0]?.found ?? 0);
      const unknown = await effectsLeftUnknown(tx, rows.filter((raw) => raw.lapsed_effects === true).map((raw) => rawToTaskRow(raw)));
      await appendEvents(tx, clock, [...rows.map((raw) => {
        const row = rawToTaskRow(raw);
        return lapseEvent(row, lapsedOf(raw, row.version));
      }), ...unknown]);
      result.expired += rows.length;
      if (found > budget) {
        await tripExpirySpike(tx, clock, state.queue, state.queue.expiryThreshold);
        result.stopped.push(name);
      }
    }
    return ok(result);
  },
});
