// The reference agent's --steps N (docs/checkpoints.md): the work is N steps, each checkpointed
// when done, so a successor resumes after the last step an earlier attempt recorded — the
// checkpoint its claim carries — instead of starting over. A checkpoint the server refuses
// (the attempt is no longer the current one) ends the work: the task is someone else's.
import type { ClaimboardClient, Task } from "../lib/client";

export interface Steps {
  client: () => ClaimboardClient;
  /** Works one step for `ms` with heartbeats: the task's latest state, or null when it was lost. */
  work: (task: Task, ms: number) => Promise<Task | null>;
  /** An owner call with the agent's retries: null when the task is no longer ours. */
  ownerCall: <T>(task: Task, verb: string, call: () => Promise<T>) => Promise<T | null>;
  log: (line: string) => void;
}

/** The first step left to do: after the latest checkpoint the task was handed, whichever attempt recorded it. */
export const firstStep = (task: Task) => (task.checkpoint ? task.checkpoint.step + 1 : 1);

/** Works steps firstStep..n of the task, `ms` in all, checkpointing each: the latest task, or null when lost. */
export async function workInSteps(task: Task, n: number, ms: number, steps: Steps): Promise<Task | null> {
  const from = firstStep(task);
  if (task.checkpoint) {
    steps.log(`resuming ${task.id} at step ${from} of ${n} (checkpoint ${task.checkpoint.step} by ${task.checkpoint.by.name}, attempt ${task.checkpoint.attempt})`);
  }
  let latest: Task | null = task;
  for (let step = from; step <= n && latest; step++) {
    const worked: Task | null = await steps.work(latest, ms / n);
    if (!worked) return null;
    const state = { done: step, of: n, attempt: worked.attempt };
    const answer = await steps.ownerCall(worked, "checkpoint", () => steps.client().checkpoint(worked, step, state));
    if (!answer) return null;
    steps.log(`checkpoint ${step}/${n} on ${worked.id} (attempt ${answer.checkpoint.attempt})`);
    latest = answer.task;
  }
  return latest;
}
