import "server-only";
import { connectDatabase, serverPoolOptions, type Database } from "./client";

// One pool per server process; cached on globalThis so hot reload does not leak connections.
const globalForDb = globalThis as unknown as { claimboardDb?: Database };

export function getDatabase(): Database {
  if (!globalForDb.claimboardDb) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start the app with `npm start` or `npm run dev`");
    globalForDb.claimboardDb = connectDatabase(url, serverPoolOptions());
  }
  return globalForDb.claimboardDb;
}

/**
 * Drops the pool after a call on it did not settle in time (postgres.js 3.4.9 can leave a
 * query waiting forever on a connection reset under it: docs/reliability.md). The next call
 * makes a new pool; the old one's connections are ended, which fails what still waits there.
 */
export function replaceDatabase(stale: Database): void {
  if (globalForDb.claimboardDb !== stale) return;
  globalForDb.claimboardDb = undefined;
  void stale.client.end({ timeout: 1 }).catch(() => {});
}
