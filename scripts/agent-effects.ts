// The reference agent's --effects (docs/effects.md): its simulated external call goes through
// the effect ledger as a real agent's should — an intent recorded before the call (its
// idempotencyKey is what the call would send downstream), resolved after it. An unknown effect
// a crashed predecessor left is first looked up downstream by that same key (simulated: it is
// found) and resolved, so the task can be completed.
import type { ClaimboardClient, Task } from "../lib/client";

export interface Intent {
  task: Task;
  effectId: string;
  /** The key was already settled (an earlier attempt's call, resolved): nothing to resolve after. */
  settled: boolean;
}

/** Resolves what an earlier attempt left unknown, then records this attempt's intent. */
export async function intendCall(client: ClaimboardClient, task: Task, log: (line: string) => void): Promise<Intent> {
  let latest = task;
  for (const open of task.openEffects.filter((e) => e.state === "unknown")) {
    latest = (await client.resolveEffect(latest, open.id, {
      state: "applied", externalRef: `sim:${open.idempotencyKey}`, note: "found downstream by its idempotency key",
    })).task;
    log(`resolved effect ${open.id} of ${task.id} (left unknown by attempt ${open.attempt}): applied`);
  }
  const recorded = await client.recordEffect(latest, { name: "simulated external call", key: "simulated-call", target: "sim://downstream" });
  log(`intent ${recorded.effect.id} of ${task.id} key ${recorded.effect.idempotencyKey} (${recorded.effect.state})`);
  return { task: recorded.task, effectId: recorded.effect.id, settled: recorded.effect.state !== "intended" };
}

/** The call happened: the intent is applied. */
export async function callDone(client: ClaimboardClient, intent: Intent, latest: Task, log: (line: string) => void): Promise<Task> {
  if (intent.settled) return latest;
  const resolved = await client.resolveEffect(latest, intent.effectId, { state: "applied", externalRef: `sim:${latest.id}:${latest.attempt}` });
  log(`applied effect ${intent.effectId} of ${latest.id}`);
  return resolved.task;
}
