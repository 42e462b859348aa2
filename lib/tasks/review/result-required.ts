import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { loadTask } from "../core/task-row";
import { fail, type ActorRef, type EngineError } from "../core/types";
import { needsReview } from "./submission";

// A reviewer approves what they read (contract v1.3, "Attention"): a submission of nothing
// leaves them a digest over `null` to approve unseen, so a completion that would wait for
// review must carry a result. "Nothing" is null, an empty or blank string, {} or [].

/** Whether a completion's result says nothing a reviewer could read. */
export function isEmptyResult(result: unknown): boolean {
  if (result === undefined || result === null) return true;
  if (typeof result === "string") return result.trim() === "";
  if (Array.isArray(result)) return result.length === 0;
  if (typeof result === "object") return Object.keys(result).length === 0;
  return false;
}

/** `isEmptyResult` in SQL over a jsonb expression, for the completion's guard. */
export const emptyResultSql = (result: SQL) => sql`(${result} IS NULL OR ${result} IN ('null'::jsonb, '{}'::jsonb, '[]'::jsonb)
  OR (jsonb_typeof(${result}) = 'string' AND (${result} #>> '{}') ~ '^[[:space:]]*$'))`;

/**
 * The refusal of a completion whose guard missed because it would wait for review without a
 * result: the task is still this caller's started task at this version in a queue that
 * reviews this caller. Null when that is not why (the miss is explained as any other).
 */
export async function resultRequired(db: Executor, item: { taskId: string; version: number; result?: unknown }, actor: ActorRef): Promise<{ ok: false; error: EngineError } | null> {
  if (!isEmptyResult(item.result)) return null;
  const [row] = await db.execute<{ queue: string }>(sql`
    SELECT t.queue FROM tasks t JOIN queues q ON q.name = t.queue
    WHERE t.id = ${item.taskId}::bigint AND t.status = 'started' AND t.owner_id = ${actor.id}::uuid
      AND t.version = ${item.version} AND ${needsReview(actor)}`);
  if (!row) return null;
  return fail({
    code: "invalid_request",
    field: "result",
    message: `Queue ${row.queue} reviews this completion: send a result the reviewer can read (a summary, links or data), not an empty one`,
    task: (await loadTask(db, item.taskId)) ?? undefined,
  });
}
