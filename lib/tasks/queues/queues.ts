import { eq, isNull } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { queues, type Queue } from "@/db/schema";
import type { Clock } from "../core/clock";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { queueSettingsInput, type QueueSettingsInput } from "../core/schemas";
import { fail, ok, type ActorRef, type EngineError, type Result } from "../core/types";
import { SUPERVISORS } from "../core/standing";
import { nearest } from "@/lib/text/nearest";

/** Always exists (migration 0001 seeds it) and cannot be archived: a create naming no queue lands here. */
export const DEFAULT_QUEUE = "default";

/** The 400 for a queue nobody made: queues are made on purpose (createQueue), never by a typo. */
export const unknownQueue = (name: string, near?: string): EngineError => ({
  code: "invalid_request", field: "queue",
  message: `queue '${name}' does not exist (a supervisor creates queues on /queues, or POST /api/v1/queues)${didYouMean(near)}`,
});

/** " Did you mean 'triage'?" when a name is close, else "": the tail of every unknown-queue sentence. */
export const didYouMean = (near: string | undefined) => (near ? `. Did you mean '${near}'?` : "");

/** The open queue a mistyped name most likely meant (lib/text/nearest.ts), if one is close. */
export async function nearestQueue(tx: Executor, name: string): Promise<string | undefined> {
  const open = await tx.select({ name: queues.name }).from(queues).where(isNull(queues.archivedAt)).orderBy(queues.name);
  return nearest(name, open.map((q) => q.name));
}

/** The unknown-queue 400 with its "did you mean" (only read when the queue is missing). */
export async function unknownQueueIn(tx: Executor, name: string): Promise<EngineError> {
  return unknownQueue(name, await nearestQueue(tx, name));
}

/** The 400 for new work in an archived queue; what it already holds can still be finished. */
export const archivedQueue = (name: string): EngineError => ({
  code: "invalid_request", field: "queue",
  message: `queue '${name}' is archived: it takes no new tasks or claims (a supervisor can restore it)`,
});

/** Unknown or archived: the 400 naming the queue; else null (the queue takes new work). */
export function refuseNewWork(name: string, queue: Pick<Queue, "archivedAt"> | null | undefined): EngineError | null {
  if (!queue) return unknownQueue(name);
  return queue.archivedAt ? archivedQueue(name) : null;
}

/**
 * The queue new work goes to (a create), read without a lock: a FOR SHARE on every create
 * would serialise them against each other's multixacts, and the archive is a switch for
 * new work, not a fence — a create already past this read when an archive commits lands,
 * visible in the archived queue's counts, where a supervisor can cancel it.
 */
export async function queueForWork(tx: Executor, name: string): Promise<Result<Queue>> {
  const queue = await getQueue(tx, name);
  if (!queue) return fail(await unknownQueueIn(tx, name));
  const refused = refuseNewWork(name, queue);
  return refused ? fail(refused) : ok(queue);
}

/** A queue a supervisor changes (settings, pause), locked for the change; unknown: the 400. */
export async function lockQueue(tx: Executor, name: string): Promise<Result<Queue>> {
  const [queue] = await tx.select().from(queues).where(eq(queues.name, name)).for("update");
  return queue ? ok(queue) : fail(await unknownQueueIn(tx, name));
}

export async function getQueue(tx: Executor, name: string): Promise<Queue | null> {
  const [queue] = await tx.select().from(queues).where(eq(queues.name, name));
  return queue ?? null;
}

const SETTINGS = [
  "leaseSeconds", "maxFailures", "expiryThreshold", "expiryWindowSeconds",
  "claimants", "commenters", "maxAttemptSeconds", "retryDelaySeconds", "lockDelaySeconds", "questionTimeoutSeconds", "review", "description",
  "personIdleSeconds", "personGraceSeconds", "maxRenewalsWithoutProgress",
] as const;
type Setting = (typeof SETTINGS)[number];
export type SettingsChange = { [K in Setting]?: { from: Queue[K]; to: Queue[K] } };

/**
 * Supervisor: change a queue's lease length, max failures, breaker bounds or description. A change is
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
): Promise<Result<{ queue: Queue; changes: SettingsChange }>> {
  const locked = await lockQueue(tx, input.queue);
  if (!locked.ok) return locked;
  const old = locked.value;
  const changes: SettingsChange = {};
  for (const key of SETTINGS) {
    const to = input[key];
    if (to !== undefined && to !== old[key]) (changes as Record<string, unknown>)[key] = { from: old[key], to };
  }
  if (Object.keys(changes).length === 0) return ok({ queue: old, changes });
  const [queue] = await tx
    .update(queues)
    .set({ ...Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v.to])), updatedAt: clock.now() })
    .where(eq(queues.name, input.queue))
    .returning();
  await appendEvents(tx, clock, [
    { taskId: null, queue: input.queue, type: "settings_changed", actorId: actor.id, payload: { changes, ...why } },
  ]);
  return ok({ queue: queue!, changes });
}

export const setQueueSettings = defineOperation({
  name: "setQueueSettings",
  who: SUPERVISORS,
  input: queueSettingsInput,
  async run(tx, input, { actor, clock }) {
    const changed = await changeQueueSettings(tx, clock, actor, input);
    return changed.ok ? ok(changed.value.queue) : changed;
  },
});
