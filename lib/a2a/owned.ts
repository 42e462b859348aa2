import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { loadTask } from "@/lib/tasks";
import type { Task } from "@/lib/tasks/model";
import type { TaskStatus } from "@/db/schema";

// Which board tasks are a caller's A2A tasks: the ones its SendMessage created. The create's
// idempotency key says so — `a2a:<message id>`, stored by the engine as `<creator's actor
// id>:a2a:<message id>` — so no table of its own is needed, and another caller's tasks (A2A
// or not) are, to this caller's A2A client, tasks that do not exist.

/** The create's idempotency key for an A2A message: a retry of the same message finds its task. */
export const a2aKey = (messageId: string) => `a2a:${messageId}`;

const prefixOf = (actorId: string) => `${actorId}:a2a:`;
const TASK_ID = /^[1-9][0-9]{0,18}$/;

/** The caller's A2A task `id`, or null when there is none (not theirs, not A2A, or no such task). */
export async function ownA2ATask(db: Executor, actorId: string, id: string): Promise<Task | null> {
  if (!TASK_ID.test(id)) return null;
  const [mine] = await db.execute<{ id: string }>(sql`
    SELECT id::text FROM task_state WHERE id = ${id}::bigint AND starts_with(idempotency_key, ${prefixOf(actorId)})`);
  return mine ? loadTask(db, id) : null;
}

export interface OwnPage {
  tasks: Task[];
  /** The last task's id when more follow; "" at the end. */
  next: string;
  total: number;
}

/** The caller's A2A tasks, newest first, `limit` at a time after the task `before` (a page token). */
export async function listOwnA2ATasks(
  db: Executor, actorId: string, query: { statuses: TaskStatus[] | null; before: string | null; limit: number },
): Promise<OwnPage> {
  const mine = sql`starts_with(s.idempotency_key, ${prefixOf(actorId)})
    ${query.statuses ? sql`AND s.status = ANY(${`{${query.statuses.join(",")}}`}::task_status[])` : sql``}`;
  const page = await db.execute<{ id: string }>(sql`
    SELECT s.id::text FROM task_state s WHERE ${mine}
    ${query.before ? sql`AND s.id < ${query.before}::bigint` : sql``}
    ORDER BY s.id DESC LIMIT ${query.limit + 1}`);
  const [counted] = await db.execute<{ total: number }>(sql`SELECT count(*)::int AS total FROM task_state s WHERE ${mine}`);
  const ids = page.slice(0, query.limit).map((row) => row.id);
  const tasks = (await Promise.all(ids.map((id) => loadTask(db, id)))).filter((task): task is Task => task !== null);
  return { tasks, next: page.length > query.limit ? ids.at(-1)! : "", total: counted?.total ?? 0 };
}

