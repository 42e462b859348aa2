// The reference agent's --effects (docs/effects.md): its simulated external call goes through
// the effect ledger as a real agent's should — an intent recorded before the call (its
// idempotencyKey is what the call sends downstream), resolved after it. An unknown effect a
// crashed predecessor left is first looked up downstream by that same key and resolved, so the
// task can be completed. With --downstream FILE the downstream is a file of the keys it has
// applied, one a line (what the fault suite checks); without one the lookup always finds it.
import { appendFileSync, readFileSync } from "node:fs";
import type { ClaimboardClient, Task } from "../lib/client";

export interface Intent {
  task: Task;
  effectId: string;
  idempotencyKey: string;
  /** The call was already made (an earlier attempt's, applied): nothing to do or resolve. */
  settled: boolean;
}

const CALL = "simulated external call";

/** A downstream that honours the Idempotency-Key: a file of the keys it applied. */
export class Downstream {
  constructor(private readonly file: string | undefined) {}

  has(key: string): boolean {
    if (!this.file) return true;
    try {
      return readFileSync(this.file, "utf8").split("\n").includes(key);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }

  /** The call itself: applied once per key, however often it is sent. */
  apply(key: string) {
    if (this.file && !this.has(key)) appendFileSync(this.file, `${key}\n`);
  }
}

/** Resolves what an earlier attempt left unknown (by asking downstream), then records this attempt's intent. */
export async function intendCall(client: ClaimboardClient, task: Task, downstream: Downstream, log: (line: string) => void): Promise<Intent> {
  let latest = task;
  for (const open of task.openEffects.filter((e) => e.state === "unknown")) {
    const happened = downstream.has(open.idempotencyKey);
    latest = (await client.resolveEffect(latest, open.id, happened
      ? { state: "applied", externalRef: `sim:${open.idempotencyKey}`, note: "found downstream by its idempotency key" }
      : { state: "failed", note: "not found downstream by its idempotency key" })).task;
    log(`resolved effect ${open.id} of ${task.id} (left unknown by attempt ${open.attempt}): ${happened ? "applied" : "failed"}`);
  }
  // The call is made once: if an earlier attempt's was applied, it is done; a failed one is
  // retried under a key of this attempt's (the same key again would answer the failed effect).
  const effects = latest.attempt <= 1 ? [] : await client.listEffects(latest.id);
  const done = effects.find((e) => e.name === CALL && e.state === "applied");
  if (done) return { task: latest, effectId: done.id, idempotencyKey: done.idempotencyKey, settled: true };
  const retry = effects.some((e) => e.name === CALL && e.state === "failed");
  const key = retry ? `simulated-call#${latest.attempt}` : "simulated-call";
  const recorded = await client.recordEffect(latest, { name: CALL, key, target: "sim://downstream" });
  log(`intent ${recorded.effect.id} of ${task.id} key ${recorded.effect.idempotencyKey} (${recorded.effect.state})`);
  return { task: recorded.task, effectId: recorded.effect.id, idempotencyKey: recorded.effect.idempotencyKey, settled: recorded.effect.state === "applied" };
}

/** The call is made (downstream applies the key), then the intent is applied. */
export async function callDone(client: ClaimboardClient, intent: Intent, latest: Task, log: (line: string) => void): Promise<Task> {
  if (intent.settled) return latest;
  const resolved = await client.resolveEffect(latest, intent.effectId, { state: "applied", externalRef: `sim:${latest.id}:${latest.attempt}` });
  log(`applied effect ${intent.effectId} of ${latest.id}`);
  return resolved.task;
}
