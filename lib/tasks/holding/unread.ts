import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { executePrepared } from "@/db/hot-path";
import type { TaskRow, TaskStatus } from "@/db/schema";
import { loadTask, toTasks } from "../core/task-row";
import { fail, type ActorRef, type Result, type Task, type Unread } from "../core/types";

// Input read before done (docs/leases.md): a comment by anyone but the holder is unread for
// the holder until acknowledged. task_state.unread_from is the id of the earliest comment that
// may be unread (null: none, the common case); the comments themselves are the log's
// `commented` events from there on by anyone but the holder now. A completion or a new effect
// intent looks at the log only when the column is set, so the loop's guard stays one column.

/**
 * Guard (t = the task): nothing unread for the holder. The log is read only for a task whose
 * unread_from is set; comments by the holder itself (left before it claimed) never count.
 */
export const noUnread = sql`(t.unread_from IS NULL OR NOT EXISTS (
    SELECT 1 FROM task_events u WHERE u.task_id = t.id AND u.type = 'commented' AND u.id >= t.unread_from AND u.actor_id <> t.owner_id))`;

/** The comments unread for `holderId` on the task, oldest first; [] when nothing is. */
export async function listUnread(tx: Executor, taskId: string, holderId: string): Promise<Unread[]> {
  const rows = await executePrepared<{ id: string; by_id: string; by_name: string; by_kind: ActorRef["kind"]; body: string; at: string }>(tx, sql`
    SELECT e.id::text, a.id AS by_id, a.name AS by_name, a.kind AS by_kind, e.payload ->> 'body' AS body, e.created_at AS at
    FROM task_state t
    JOIN task_events e ON e.task_id = t.id AND e.type = 'commented' AND e.id >= t.unread_from AND e.actor_id <> ${holderId}::uuid
    JOIN actors a ON a.id = e.actor_id
    WHERE t.id = ${taskId}::bigint AND t.unread_from IS NOT NULL
    ORDER BY e.id
    LIMIT 100`);
  return rows.map((r) => ({ eventId: r.id, by: { id: r.by_id, name: r.by_name, kind: r.by_kind }, text: r.body, at: new Date(r.at) }));
}

/**
 * The tasks a holder's own write just returned (a claim, a heartbeat), with their `unread`:
 * only a row whose unread_from is set costs a read of the log.
 */
export async function holderTasks(tx: Executor, held: { row: TaskRow; unreadFrom: string | null }[], actor: ActorRef): Promise<Task[]> {
  const tasks = await toTasks(tx, held.map((h) => h.row), actor);
  return Promise.all(tasks.map((task, i) => (held[i]!.unreadFrom === null ? { ...task, unread: [] } : withUnread(tx, task, actor))));
}

/** The task as its holder sees it: with `unread` (possibly []) when `actor` holds it. */
export async function withUnread(tx: Executor, task: Task, actor: ActorRef): Promise<Task> {
  if (task.owner?.id !== actor.id) return task;
  return { ...task, unread: await listUnread(tx, task.id, actor.id) };
}

/**
 * A comment by `authorId` marks itself unread for the task's holder, when the task has one
 * and it is not the author. A row lock for a held task only: a comment on any other task
 * still writes nothing to it.
 */
export async function markUnread(tx: Executor, taskId: bigint, eventId: bigint, authorId: string): Promise<void> {
  await tx.execute(sql`
    UPDATE task_state t SET unread_from = coalesce(t.unread_from, ${eventId.toString()}::bigint)
    WHERE t.id = ${taskId.toString()}::bigint AND t.owner_id IS NOT NULL AND t.owner_id <> ${authorId}::uuid
      AND t.status IN ('claimed', 'started', 'awaiting_input') AND t.unread_from IS NULL`);
}

/**
 * After an owner's call that a guard with `noUnread` refused: was unread input the reason (the
 * caller's task, at the version named, in a status the move takes)? Then 409
 * unread_human_input naming the comments, with the task (and its `unread`); null otherwise.
 */
export async function refuseUnread(
  tx: Executor, call: { taskId: string; version: number }, actor: ActorRef, verb: string, from: readonly TaskStatus[],
): Promise<Result<never> | null> {
  const { taskId } = call;
  const task = await loadTask(tx, taskId);
  if (!task || task.owner?.id !== actor.id || task.version !== call.version || !from.includes(task.status)) return null;
  const unread = await listUnread(tx, taskId, actor.id);
  if (unread.length === 0) return null;
  const named = unread.slice(0, 5).map((u) => `${u.eventId} by ${u.by.name} ("${clip(u.text)}")`).join(", ");
  return fail({
    code: "unread_human_input",
    message: `Task ${taskId} has ${unread.length} unacknowledged comment${unread.length === 1 ? "" : "s"}: ${named}${unread.length > 5 ? ", …" : ""}. ` +
      `Read them, then POST /tasks/${taskId}/ack with the newest eventId (${unread.at(-1)!.eventId}) before you ${verb}`,
    task: { ...task, unread },
  });
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);
