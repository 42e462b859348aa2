import type { StreamResponse, Task as A2ATask } from "@a2a-js/sdk";
import { getHub } from "@/lib/realtime";
import { isFinal } from "./states";

// SendStreamingMessage and SubscribeToTask (docs/a2a.md#streaming): the task first, then a
// status update each time its A2A state (or the question it asks) changes, the result
// artifact before `completed`, and the end of the stream at a final state. Woken by the
// app's event stream (the realtime hub's batches of committed events), with a re-read on a
// timer as its backstop; a stream lasts at most STREAM_MAX_MS, after which the client
// subscribes again (SubscribeToTask answers the task as it is, then follows it).

const BACKSTOP_MS = 5_000;
export const STREAM_MAX_MS = Math.max(1_000, Number(process.env.A2A_STREAM_MAX_MS) || 10 * 60_000);

const statusKey = (task: A2ATask) => JSON.stringify([task.status?.state, task.status?.message?.messageId ?? null]);

export async function* follow(first: A2ATask, load: () => Promise<A2ATask | null>): AsyncGenerator<StreamResponse, void, undefined> {
  yield { payload: { $case: "task", value: first } };
  if (first.status && isFinal(first.status.state)) return;
  let wake: () => void = () => {};
  let woken = false;
  const hub = await getHub();
  const untap = hub.tap((events) => {
    if (!events.some((event) => event.taskId === first.id)) return;
    woken = true;
    wake();
  });
  const until = Date.now() + STREAM_MAX_MS;
  let last = statusKey(first);
  try {
    while (Date.now() < until) {
      if (!woken) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, Math.min(BACKSTOP_MS, Math.max(0, until - Date.now())));
        });
        clearTimeout(timer);
      }
      woken = false;
      const task = await load();
      if (!task) return;
      if (statusKey(task) === last) continue;
      last = statusKey(task);
      for (const artifact of task.artifacts) {
        yield { payload: { $case: "artifactUpdate", value: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: undefined } } };
      }
      yield { payload: { $case: "statusUpdate", value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: task.metadata } } };
      if (task.status && isFinal(task.status.state)) return;
    }
  } finally {
    untap();
  }
}
