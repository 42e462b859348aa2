import "server-only";
import type { Executor } from "@/db/client";
import { listQueues, type QueueSummary } from "@/lib/tasks/queue-list";

/** A queue on /queues: settings, state, live counts and throughput (lib/tasks/queue-list.ts). */
export type QueueSettingsRow = QueueSummary;

/** Every queue, archived ones too (the page shows them apart), alphabetically. */
export async function listQueueSettings(db: Executor): Promise<QueueSettingsRow[]> {
  return listQueues(db);
}
