import { sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db/client";

const SETTINGS = sql`SELECT set_config('jit', 'off', true), set_config('work_mem', '32MB', true)`;
const isTransaction = (db: Executor): db is Tx => "rollback" in db;

/**
 * Runs `fn` in a transaction (the caller's, or one of its own) with JIT compilation off
 * and room to sort in memory, for reads whose estimates are far above what they do.
 * The insights statements are estimated far above jit_above_cost (LATERAL ranges, a walk
 * back per event) though they touch a few thousand rows: on PostgreSQL 15 with JIT on,
 * compiling and inlining a day's rollup took 2.2 s of its 2.4 s, and a rolled-up 30-day
 * read 280 ms of 380 (bench/explain-insights.ts). A 30-day read adds up ~60,000 rollup rows
 * (a queue's 720 hours): with the default 4 MB work_mem that sort spilled to disk (130 ms).
 * The queue list (lib/tasks/queues/queue-list.ts) is ten small probes a queue, but a queues
 * table never analyzed (autovacuum waits for 50 changes) is guessed at 320 rows: at a
 * million tasks its estimate passed jit_above_cost and compiling took 33 ms of its 45.
 * SET LOCAL ends with the transaction, so nothing leaks to the next user of a pooled connection.
 */
export async function withReadSettings<T>(db: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> {
  if (isTransaction(db)) {
    await db.execute(SETTINGS);
    return fn(db);
  }
  return db.transaction(async (tx) => {
    await tx.execute(SETTINGS);
    return fn(tx);
  });
}
