// The reference agent reads input before done (docs/leases.md): others' comments on a task it
// holds come back as task.unread (claims, heartbeats); it prints each once and acknowledges
// them before it completes. A completion refused unread_human_input (a comment that came after
// the last heartbeat) is read, acknowledged and sent again, once.
import { ClaimboardApiError, type ClaimboardClient, type Task } from "../lib/client";

type Unread = NonNullable<Task["unread"]>[number];

const printed = new Set<string>();

/** Prints the task's unread comments not printed before. */
export function tellUnread(task: Task, log: (line: string) => void): void {
  for (const u of task.unread ?? []) {
    if (printed.has(u.eventId)) continue;
    printed.add(u.eventId);
    log(`comment on ${task.id} from ${u.by.name} (event ${u.eventId}): ${u.text}`);
  }
}

/** Acknowledges every unread comment of `task` (the newest names them all); the task as the ack left it. */
async function acknowledge(client: ClaimboardClient, task: Task, unread: Unread[], log: (line: string) => void): Promise<Task> {
  tellUnread({ ...task, unread }, log);
  const acked = await client.ack(task, unread.at(-1)!.eventId);
  log(`acknowledged ${unread.length} comment${unread.length === 1 ? "" : "s"} on ${task.id}`);
  return acked;
}

/** `finish` (a completion) once the task's input is read: acknowledged first, and again on unread_human_input. */
export async function afterReading<T>(client: ClaimboardClient, task: Task, finish: (task: Task) => Promise<T>, log: (line: string) => void): Promise<T> {
  const ready = task.unread?.length ? await acknowledge(client, task, task.unread, log) : task;
  try {
    return await finish(ready);
  } catch (error) {
    if (!(error instanceof ClaimboardApiError) || error.code !== "unread_human_input" || !error.task?.unread?.length) throw error;
    return finish(await acknowledge(client, error.task, error.task.unread, log));
  }
}
