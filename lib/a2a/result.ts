import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { Task } from "@/lib/tasks/model";

// A done task's result, for its A2A artifact. Where the queue reviews, the approved
// submission carries it (and its digest); otherwise the completion's event does, the log
// being where a completed task's result is kept. Null only when that event was archived.

export interface Outcome {
  result: unknown;
  digest: string | null;
}

export async function outcomeOf(db: Executor, task: Task): Promise<Outcome | null> {
  if (task.status !== "done") return null;
  if (task.submission) return { result: task.submission.result ?? null, digest: task.submission.digest };
  const [done] = await db.execute<{ result: unknown }>(sql`
    SELECT payload->'result' AS result FROM task_events
    WHERE task_id = ${task.id}::bigint AND type = 'completed' ORDER BY id DESC LIMIT 1`);
  return done ? { result: done.result ?? null, digest: null } : null;
}
