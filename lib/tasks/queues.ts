import { eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { queues, type Queue } from "@/db/schema";
import { defineOperation } from "./engine";
import { queueSettingsInput } from "./schemas";
import { ok } from "./types";

export const DEFAULT_QUEUE = "default";

/** Unknown queue names are created on first use, with the defaults. */
export async function ensureQueue(tx: Executor, name: string): Promise<void> {
  await tx.insert(queues).values({ name }).onConflictDoNothing();
}

export async function getQueue(tx: Executor, name: string): Promise<Queue | null> {
  const [queue] = await tx.select().from(queues).where(eq(queues.name, name));
  return queue ?? null;
}

/** Supervisor: change a queue's lease length, max failures or breaker threshold. */
export const setQueueSettings = defineOperation({
  name: "setQueueSettings",
  input: queueSettingsInput,
  async run(tx, input, { clock }) {
    await ensureQueue(tx, input.queue);
    const [queue] = await tx
      .update(queues)
      .set({
        leaseSeconds: input.leaseSeconds,
        maxFailures: input.maxFailures,
        expiryThreshold: input.expiryThreshold,
        expiryWindowSeconds: input.expiryWindowSeconds,
        updatedAt: clock.now(),
      })
      .where(eq(queues.name, input.queue))
      .returning();
    return ok(queue!);
  },
});
