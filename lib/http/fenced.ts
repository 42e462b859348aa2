import "server-only";
import type { Db } from "@/db/client";
import { fenceKey, makeFence } from "@/lib/tasks";
import { FENCE_HEADER, HELD, type EngineError, type Task } from "@/lib/tasks/model";

// The holder's fence on the way out (docs/fences.md): every owner call's answer carries, in
// the task and in the Claimboard-Fence header, the fence of the attempt the caller acted as —
// a release or fail too, whose fence then verifies as released. The engine never sees the
// key: the surface signs what the engine answered (task id and attempt are in the task).

/** `task` with the fence of its attempt (the caller's: an owner call succeeded). */
export async function fenced(db: Db, task: Task): Promise<Task> {
  if (task.attempt < 1) return task;
  return { ...task, fence: makeFence(await fenceKey(db), task.id, task.attempt) };
}

/** The task as a reader sees it: its fence only when the reader holds it now. */
export async function fencedForReader(db: Db, task: Task, readerId: string | undefined): Promise<Task> {
  return readerId && task.owner?.id === readerId && HELD.includes(task.status) ? fenced(db, task) : task;
}

/** Sets the Claimboard-Fence header of an owner call's response from its task. */
export function withFenceHeader(response: Response, task: Task | undefined): Response {
  if (response.ok && task?.fence) response.headers.set(FENCE_HEADER, task.fence);
  return response;
}

/** A refusal's `task` as its caller reads it: with the fence when the caller holds the task now (as GET /tasks/{id} shows it). */
export async function fencedRefusal(db: Db, result: { ok: false; error: EngineError }, readerId: string | undefined) {
  const task = result.error.task;
  return task ? { ok: false as const, error: { ...result.error, task: await fencedForReader(db, task, readerId) } } : result;
}
