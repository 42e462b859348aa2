import "server-only";
import { getDatabase, replaceDatabase } from "@/db";

/** Far past any engine call's own bound (lock_timeout 5 s, connect 5 s): only a call that never settles meets it. */
const deadlineMs = () => Number(process.env.REQUEST_DEADLINE_SECONDS ?? 20) * 1000;

/**
 * Every API call and every server action answers. A database call the driver never settles
 * (docs/reliability.md: postgres.js after a connection reset under load) would hold its
 * caller forever; past the deadline the caller gets `late()` — unavailable, retry — and the
 * pool it waited on is replaced, so the next calls do not queue behind the same wedged
 * connections. `label` names the call in the log.
 */
export async function withinDeadline<T>(label: string, work: Promise<T>, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const pool = process.env.DATABASE_URL ? getDatabase() : null;
  const timedOut = new Promise<T>((resolve) => {
    timer = setTimeout(() => {
      console.error(`${label}: no answer from the database in ${deadlineMs() / 1000} s; its pool is replaced`);
      if (pool) replaceDatabase(pool);
      resolve(late());
    }, deadlineMs());
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
