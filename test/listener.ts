import postgres from "postgres";

export interface Listener {
  /** Payloads in arrival order. */
  received: string[];
  /** The first payload (already received or still to come) that matches; rejects after `timeoutMs`. */
  waitFor(match: string | ((payload: string) => boolean), timeoutMs?: number): Promise<string>;
  clear(): void;
  close(): Promise<void>;
}

/**
 * LISTENs on `channel` on a connection of its own. The timeout of waitFor is only a net so
 * a missing notification fails the test instead of hanging it; nothing waits on it otherwise.
 */
export async function listen(url: string, channel: string): Promise<Listener> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const received: string[] = [];
  const waiters = new Set<{ test: (p: string) => boolean; resolve: (p: string) => void }>();
  await client.listen(channel, (payload) => {
    received.push(payload);
    for (const waiter of waiters) {
      if (waiter.test(payload)) {
        waiters.delete(waiter);
        waiter.resolve(payload);
      }
    }
  });
  return {
    received,
    waitFor(match, timeoutMs = 10_000) {
      const test = typeof match === "string" ? (p: string) => p === match : match;
      const already = received.find(test);
      if (already !== undefined) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const waiter = {
          test,
          resolve: (p: string) => {
            clearTimeout(timer);
            resolve(p);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no notification matching ${String(match)} within ${timeoutMs} ms; got ${JSON.stringify(received)}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    clear() {
      received.length = 0;
    },
    close: () => client.end({ timeout: 5 }),
  };
}
