import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { getDatabase, replaceDatabase } from "@/db";

/** Far past any engine call's own bound (lock_timeout 5 s, connect 5 s): only a call that never settles meets it. */
const deadlineMs = () => Number(process.env.REQUEST_DEADLINE_SECONDS ?? 20) * 1000;

/** A call's deadline: a timer that stops while the call waits on purpose (`idle`), not on the database. */
interface Deadline {
  /** The deadline of the call this one runs inside (MCP's request around a tool's API call), if any. */
  outer: Deadline | undefined;
  pause(): void;
  resume(): void;
}

const running = new AsyncLocalStorage<Deadline>();

/**
 * Every API call and every server action answers. A database call the driver never settles
 * (docs/reliability.md: postgres.js after a connection reset under load) would hold its
 * caller forever; past the deadline the caller gets `late()` — unavailable, retry — and the
 * pool it waited on is replaced, so the next calls do not queue behind the same wedged
 * connections. `label` names the call in the log. Time the call spends in `idle` (a
 * question's long-poll between reads) does not count: that is no database call.
 */
export async function withinDeadline<T>(label: string, work: () => Promise<T>, late: () => T): Promise<T> {
  const pool = process.env.DATABASE_URL ? getDatabase() : null;
  let timer: NodeJS.Timeout | undefined;
  let left = deadlineMs();
  let since = 0;
  let paused = 0;
  // Answered, or out of time: a wait that goes on in the work left behind restarts no timer.
  let over = false;
  let expire: () => void = () => {};
  const timedOut = new Promise<T>((resolve) => {
    expire = () => {
      over = true;
      console.error(`${label}: no answer from the database in ${deadlineMs() / 1000} s; its pool is replaced`);
      if (pool) replaceDatabase(pool);
      resolve(late());
    };
  });
  const start = () => {
    if (over) return;
    since = Date.now();
    timer = setTimeout(expire, Math.max(0, left));
  };
  const deadline: Deadline = {
    outer: running.getStore(),
    pause() {
      if (paused++ > 0) return;
      clearTimeout(timer);
      left -= Date.now() - since;
    },
    resume() {
      if (--paused === 0) start();
    },
  };
  start();
  try {
    return await Promise.race([running.run(deadline, work), timedOut]);
  } finally {
    over = true;
    clearTimeout(timer);
  }
}

/**
 * Waits for `waiting`, a wait the caller chose (not a database call), with the deadlines of
 * the call and of every call around it stopped meanwhile. Outside any deadline, just waits.
 */
export async function idle<T>(waiting: Promise<T>): Promise<T> {
  const chain: Deadline[] = [];
  for (let d = running.getStore(); d; d = d.outer) chain.push(d);
  for (const d of chain) d.pause();
  try {
    return await waiting;
  } finally {
    for (const d of chain) d.resume();
  }
}
