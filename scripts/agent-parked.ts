// The reference agent's wait while a task of its is parked at its budget (--spend).
import type { ClaimboardClient, Task } from "../lib/client";
import { log, sleep, transient } from "./agent-calls";

/**
 * A heartbeat's spend reached the task's budget (docs/budgets.md): the lease is parked, so
 * there is nothing to renew; read the task every 2 s until a supervisor's raise returns it to
 * us (started), or it is no longer ours (its question's deadline escalated it): null then.
 * `signal` ends a wait early; `stopping` says the agent is shutting down.
 */
export async function whileParked(client: ClaimboardClient, task: Task, signal: AbortSignal, stopping: () => boolean): Promise<Task | null> {
  log(`parked ${task.id} at its budget: spent ${task.spent} of ${task.budget?.limit} ${task.budget?.unit}; waiting for a supervisor to raise it`);
  for (;;) {
    await sleep(2000, signal);
    if (stopping()) return null;
    const now = await client.getTask(task.id).catch((error: unknown) => (transient(error) ? task : Promise.reject(error)));
    if (now.status === "awaiting_input") continue;
    if (now.status === "started" && now.owner?.id === task.owner?.id) {
      log(`resumed ${now.id}: the budget is ${now.budget?.limit} ${now.budget?.unit}`);
      return now;
    }
    log(`abandoned ${task.id}: it is ${now.status} now`);
    return null;
  }
}
