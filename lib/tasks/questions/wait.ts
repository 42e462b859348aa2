// The long-poll of GET …/questions/{qid}?wait= (and of MCP's ask_human): re-read the question
// only when the process's LISTEN hub (lib/realtime) sees an event of its task that can settle
// it (SETTLES_QUESTION: an answer, an expiry, or the task leaving its wait), or when its
// deadline passes (an expiry is written lazily, by the read itself). Between those, a waiting
// question costs no read, however busy its task (a comment thread, heartbeats of others).
// Subscribed before the first read, so an answer committed between the read and the wait
// still wakes it; a notification lost by the hub is covered by the hub's own backstop read,
// which feeds this watch like any other batch. Pure of the hub: the surface passes `watch`
// (lib/http/handlers.ts).

export type Watch = (taskId: string, wake: () => void) => () => void;
/** How the surface waits between reads: its request deadline stopped meanwhile (lib/deadline.ts, `idle`). */
export type Idle = <T>(waiting: Promise<T>) => Promise<T>;

/** Event types after which a waiting question is read again. */
export const SETTLES_QUESTION: ReadonlySet<string> = new Set([
  "question_answered", "question_expired", "budget_raised", "escalated", "cancelled", "resolved", "requeued", "released", "failed", "lease_expired",
]);

/** Past the question's deadline, the read that expires it comes this much later (the database's clock may lag ours a little). */
const DEADLINE_SLACK_MS = 250;

export async function waitUntilSettled<R extends { ok: true; value: { answer: unknown; expiredAt: unknown; deadline?: Date | string } } | { ok: false }>(
  taskId: string,
  waitSeconds: number,
  read: () => Promise<R>,
  watch: Watch,
  idle: Idle = (waiting) => waiting,
): Promise<R> {
  let wake: () => void = () => {};
  let woken = false;
  const unwatch = watch(taskId, () => {
    woken = true;
    wake();
  });
  try {
    const until = Date.now() + waitSeconds * 1000;
    for (;;) {
      woken = false;
      const result = await read();
      if (!result.ok || result.value.answer !== null || result.value.expiredAt !== null) return result;
      const left = until - Date.now();
      if (left <= 0) return result;
      if (!woken) {
        const deadline = result.value.deadline ? new Date(result.value.deadline).getTime() + DEADLINE_SLACK_MS - Date.now() : Infinity;
        // Nothing to read before the wait's end or the question's deadline, whichever is first.
        const sleep = Math.max(0, Math.min(left, deadline));
        await idle(new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, sleep);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        }));
        wake = () => {};
        // Its end came with nothing settled: the last read stands.
        if (!woken && sleep === left) return result;
      }
    }
  } finally {
    unwatch();
  }
}
