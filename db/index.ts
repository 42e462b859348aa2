import "server-only";
import { connectDatabase, type Database } from "./client";

// One pool per server process; cached on globalThis so hot reload does not leak connections.
const globalForDb = globalThis as unknown as { claimboardDb?: Database };

export function getDatabase(): Database {
  if (!globalForDb.claimboardDb) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start the app with `npm start` or `npm run dev`");
    globalForDb.claimboardDb = connectDatabase(url, { max: Number(process.env.DB_POOL_SIZE ?? 10) });
  }
  return globalForDb.claimboardDb;
}
