import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";

/**
 * "Reviews waiting for me" (the board's count for people): in_review tasks this actor may
 * review — not submitted by them, and no attempt of theirs in the history (the engine's rule,
 * lib/tasks/review/review.ts). Capped at `cap` + 1, as the board's counts are.
 */
export async function reviewsWaitingFor(db: Executor, actorId: string, cap = 1000): Promise<number> {
  const [row] = await db.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM tasks t
      WHERE t.status = 'in_review'
        AND coalesce(t.submission->'by'->>'id', '') <> ${actorId}
        AND NOT EXISTS (SELECT 1 FROM task_events e WHERE e.task_id = t.id AND e.type = 'claimed' AND e.actor_id = ${actorId}::uuid)
      LIMIT ${cap + 1}
    ) waiting`);
  return Number(row?.n ?? 0);
}
