import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { loadTask } from "../core/task-row";
import { fail, type ActorRef, type EngineError } from "../core/types";

/**
 * A completion that matched everything but `unknown_effects = 0`: 409 effects_unresolved,
 * naming each unknown effect (docs/contract.md#the-effect-ledger). Null when that is not why it missed.
 */
export async function effectsUnresolved(db: Executor, item: { taskId: string; version: number }, actor: ActorRef): Promise<{ ok: false; error: EngineError } | null> {
  const [row] = await db.execute<{ names: string[] | null }>(sql`
    SELECT (SELECT array_agg(e.name || ' (effect ' || e.id || ', key ' || e.idempotency_key || ')' ORDER BY e.id)
            FROM task_effects e WHERE e.task_id = t.id AND e.state = 'unknown') AS names
    FROM tasks t
    WHERE t.id = ${item.taskId}::bigint AND t.status = 'started' AND t.owner_id = ${actor.id}::uuid
      AND t.version = ${item.version} AND t.unknown_effects > 0`);
  if (!row) return null;
  const task = (await loadTask(db, item.taskId))!;
  const names = row.names ?? [];
  return fail({
    code: "effects_unresolved",
    message: `Task ${item.taskId} has ${names.length} unknown effect${names.length === 1 ? "" : "s"} from an earlier attempt: ${names.join("; ")}; ` +
      "resolve each (applied or failed) before completing",
    task,
  });
}
