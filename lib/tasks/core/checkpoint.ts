import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { TaskRow } from "@/db/schema";
import { parseTimestamp } from "./task-row";
import type { ActorRef, Checkpoint, Task } from "./types";

// Checkpoints as every caller reads them (docs/checkpoints.md): the task's latest, named by the
// row (task_state.checkpoint_id), and an attempt's steps for GET …/checkpoints and the history.

const COLUMNS = sql.raw(`k.id::text AS id, k.task_id::text AS task_id, k.attempt, k.step, k.state, k.at, k.by_id, b.name AS by_name, b.kind AS by_kind`);
const JOINS = sql.raw(`JOIN actors b ON b.id = k.by_id`);

function toCheckpoint(raw: Record<string, unknown>): Checkpoint {
  const by: ActorRef = { id: String(raw.by_id), name: String(raw.by_name), kind: raw.by_kind as ActorRef["kind"] };
  return { step: Number(raw.step), state: raw.state ?? null, attempt: Number(raw.attempt), by, at: parseTimestamp(raw.at as string) };
}

/** `tasks` (made from `rows`, in order) with their latest checkpoints: one read, only for rows that name one. */
export async function withCheckpoints(tx: Executor, rows: TaskRow[], tasks: Task[]): Promise<Task[]> {
  const ids = rows.map((row) => row.checkpointId).filter((id): id is bigint => id !== null).map(String);
  if (ids.length === 0) return tasks;
  const found = await tx.execute<Record<string, unknown>>(sql`
    SELECT ${COLUMNS} FROM task_checkpoints k ${JOINS} WHERE k.id = ANY(${`{${ids.join(",")}}`}::bigint[])`);
  const byTask = new Map(found.map((raw) => [String(raw.task_id), toCheckpoint(raw)]));
  return tasks.map((task) => (byTask.has(task.id) ? { ...task, checkpoint: byTask.get(task.id)! } : task));
}

/** A task's checkpoints, by attempt and step (each step of an attempt once: its latest state). */
export async function listCheckpoints(tx: Executor, taskId: string): Promise<Checkpoint[]> {
  const rows = await tx.execute<Record<string, unknown>>(sql`
    SELECT ${COLUMNS} FROM task_checkpoints k ${JOINS} WHERE k.task_id = ${taskId}::bigint ORDER BY k.attempt, k.step`);
  return rows.map(toCheckpoint);
}
