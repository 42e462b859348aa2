import { sql, type SQL } from "drizzle-orm";
import type { TaskRow } from "@/db/schema";
import { lapseHandoff } from "./attempt";
import { SYSTEM_ACTOR_ID, type NewEvent } from "./events";
import { endAttempt } from "./transition";

// A lease that lapses, written once for every place one does: the sweep (expire.ts), a
// strike at the attempt ceiling (ceiling.ts), and a claim that takes a lapsed task over
// (claim-rows.ts, whose one UPDATE expires and claims together, so it takes the event only).
// The machine's rows: `lapse` and `strike` (lib/tasks/core/machine.ts).

/**
 * The SET items of a lapse: the attempt ends (to `status`) and, when the lapsed attempt
 * reported progress, the system writes it as the hand-off note. `src` is the alias of the
 * row as it was locked before the UPDATE.
 */
export const lapseSet = (status: SQL, src: string, now: SQL) => sql`${endAttempt(status, now)}, ${lapseHandoff(src, now)}`;

/** RETURNING items the lapse's event needs (`src` as for lapseSet). */
export const lapseReturning = (src: string) =>
  sql.raw(`${src}.owner_id AS previous_owner_id, ${src}.progress_at IS NOT NULL AS wrote_handoff, ${src}.side_effect_recorded AS lapsed_effects`);

export interface Lapsed {
  /** The version the lapse left (a claim that took over goes on from it). */
  version: number;
  previousOwnerId: string | null;
  /** The lapsed attempt had reported progress: the system wrote its hand-off note. */
  wroteHandoff: boolean;
  /** The attempt had met its ceiling: the lapse is a strike (a `failed` follows). */
  strike?: boolean;
}

/** What lapseReturning read, from a RETURNING row. */
export const lapsedOf = (raw: Record<string, unknown>, version: number): Lapsed => ({
  version,
  previousOwnerId: typeof raw.previous_owner_id === "string" ? raw.previous_owner_id : null,
  wroteHandoff: Boolean(raw.wrote_handoff),
});

/** The system's lease_expired event of a lapse; `row` is the task after it. */
export function lapseEvent(row: TaskRow, lapsed: Lapsed): NewEvent {
  return {
    taskId: row.id, queue: row.queue, type: "lease_expired", actorId: SYSTEM_ACTOR_ID,
    payload: {
      version: lapsed.version, status: "queued", previousOwnerId: lapsed.previousOwnerId, needsCheck: row.needsCheck,
      ...(lapsed.strike ? { strike: true as const } : {}),
      ...(lapsed.wroteHandoff ? { handoff: row.handoff } : {}),
    },
  };
}
