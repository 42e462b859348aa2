import type { Executor } from "@/db/client";
import { queues } from "@/db/schema";

// Queues are made on purpose (a supervisor's createQueue); a create or claim naming an
// unknown one is a 400. Tests that want a queue of their own make it here, in one line.

export type QueueSettings = Partial<Omit<typeof queues.$inferInsert, "name">>;

/**
 * Makes queue `name` (with `settings` over the defaults) and returns its name. Making one
 * that exists changes nothing, so fixtures may call it before every task they create.
 */
export async function makeQueue(db: Executor, name: string, settings: QueueSettings = {}): Promise<string> {
  await db.insert(queues).values({ ...settings, name }).onConflictDoNothing();
  return name;
}
