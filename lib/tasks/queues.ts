import { eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { queues, type Queue } from "@/db/schema";
import type { Clock } from "./clock";
import { defineOperation } from "./engine";
import { appendEvents } from "./events";
import { queueSettingsInput, type QueueSettingsInput } from "./schemas";
import { ok, type ActorRef } from "./types";

export const DEFAULT_QUEUE = "default";

/** Unknown queue names are created on first use, with the defaults. */
export async function ensureQueue(tx: Executor, name: string): Promise<void> {
  await tx.insert(queues).values({ name }).onConflictDoNothing();
}

export async function getQueue(tx: Executor, name: string): Promise<Queue | null> {
  const [queue] = await tx.select().from(queues).where(eq(queues.name, name));
  return queue ?? null;
}

const SETTINGS = [
  "leaseSeconds", "maxFailures", "expiryThreshold", "expiryWindowSeconds",
  "claimants", "maxAttemptSeconds", "retryDelaySeconds",
] as const;
type Setting = (typeof SETTINGS)[number];
export type SettingsChange = { [K in Setting]?: { from: Queue[K]; to: Queue[K] } };

/**
 * Supervisor: change a queue's lease length, max failures or breaker bounds. A change is
 * recorded as a settings_changed event naming who made it, from → to, and why (`reason`,
 * e.g. "recommended" with its evidence); asking for the values already set changes nothing
 * and writes no event. The row is locked first, so the from-values are the ones replaced.
 */
export async function changeQueueSettings(
  tx: Executor,
  clock: Clock,
  actor: ActorRef,
  input: QueueSettingsInput,
  why: Record<string, unknown> = {},
): Promise<{ queue: Queue; changes: SettingsChange }> {
  await ensureQueue(tx, input.queue);
  const [old] = await tx.select().from(queues).where(eq(queues.name, input.queue)).for("update");
  const changes: SettingsChange = {};
  for (const key of SETTINGS) {
    const to = input[key];
    if (to !== undefined && to !== old![key]) (changes as Record<string, unknown>)[key] = { from: old![key], to };
  }
  if (Object.keys(changes).length === 0) return { queue: old!, changes };
  const [queue] = await tx
    .update(queues)
    .set({ ...Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v.to])), updatedAt: clock.now() })
    .where(eq(queues.name, input.queue))
    .returning();
  await appendEvents(tx, clock, [
    { taskId: null, queue: input.queue, type: "settings_changed", actorId: actor.id, payload: { changes, ...why } },
  ]);
  return { queue: queue!, changes };
}

export const setQueueSettings = defineOperation({
  name: "setQueueSettings",
  input: queueSettingsInput,
  async run(tx, input, { actor, clock }) {
    return ok((await changeQueueSettings(tx, clock, actor, input)).queue);
  },
});
