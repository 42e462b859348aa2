// The long-poll of GET …/questions/{qid}?wait= (and of MCP's ask_human): re-read the question
// whenever the process's LISTEN hub (lib/realtime) sees an event of its task, until it is
// settled or the wait ends. Subscribed before the first read, so an answer committed between
// the read and the wait still wakes it; a backstop re-read covers a hub that missed a wake-up.
// Pure of the hub: the surface passes `watch` (lib/http/handlers.ts).

export type Watch = (taskId: string, wake: () => void) => () => void;
/** How the surface waits between reads: its request deadline stopped meanwhile (lib/deadline.ts, `idle`). */
export type Idle = <T>(waiting: Promise<T>) => Promise<T>;

const BACKSTOP_MS = 5_000;

export async function waitUntilSettled<R extends { ok: true; value: { answer: unknown; expiredAt: unknown } } | { ok: false }>(
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
        await idle(new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, BACKSTOP_MS));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        }));
        wake = () => {};
      }
    }
  } finally {
    unwatch();
  }
}
