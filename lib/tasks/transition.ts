import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import type { TaskRow, TaskStatus } from "@/db/schema";
import { rawToTaskRow } from "./task-row";
import { executePrepared } from "./prepared";
import { clearAttempt } from "./attempt";

export interface Changed {
  row: TaskRow;
  previous: { status: TaskStatus; ownerId: string | null; needsCheck: boolean; sideEffectRecorded: boolean };
}

/**
 * One guarded UPDATE of one task. `set` and `guard` may refer to the task as `t` and its
 * queue as `q`. The row is locked first (waiting at most the session's lock_timeout) so
 * the RETURNING can say what the row was before; the guard then decides, and a null
 * result means the caller lost — never a read-then-write in two steps.
 */
export async function transition(tx: Tx, taskId: string, set: SQL, guard: SQL): Promise<Changed | null> {
  const [raw] = await executePrepared<Record<string, unknown>>(tx, sql`
    WITH before AS MATERIALIZED (
      SELECT id, status, owner_id, needs_check, side_effect_recorded FROM tasks
      WHERE id = ${taskId}::bigint
      FOR UPDATE
    )
    UPDATE tasks t SET ${set}
    FROM before b, queues q
    WHERE t.id = b.id AND q.name = t.queue AND ${guard}
    RETURNING t.*, b.status AS previous_status, b.owner_id AS previous_owner_id,
              b.needs_check AS previous_needs_check, b.side_effect_recorded AS previous_side_effect_recorded`);
  if (!raw) return null;
  return {
    row: rawToTaskRow(raw),
    previous: {
      status: raw.previous_status as TaskStatus,
      ownerId: (raw.previous_owner_id as string | null) ?? null,
      needsCheck: Boolean(raw.previous_needs_check),
      sideEffectRecorded: Boolean(raw.previous_side_effect_recorded),
    },
  };
}

/** The SET list that ends an attempt and puts the task back in line (or elsewhere). */
export const endAttempt = (status: SQL, now: SQL) => sql`
  status = ${status},
  owner_id = NULL,
  lease_until = NULL,
  lease_seconds = NULL,
  needs_check = t.needs_check OR t.side_effect_recorded,
  side_effect_recorded = false,
  ${clearAttempt},
  version = t.version + 1,
  updated_at = ${now}`;
