import { sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db/client";

const isTransaction = (db: Executor): db is Tx => "rollback" in db;

/**
 * Runs `fn` in a transaction (the caller's, or one of its own) with JIT compilation off.
 * The insights statements are estimated far above jit_above_cost (LATERAL ranges, a walk
 * back per event) though they touch a few thousand rows: on PostgreSQL 15 with JIT on,
 * compiling and inlining a day's rollup took 2.2 s of its 2.4 s, and a rolled-up 30-day
 * read 280 ms of 380 (bench/explain-insights.ts). SET LOCAL ends with the transaction, so
 * nothing leaks to the next user of a pooled connection.
 */
export async function withoutJit<T>(db: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> {
  if (isTransaction(db)) {
    await db.execute(sql`SET LOCAL jit = off`);
    return fn(db);
  }
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL jit = off`);
    return fn(tx);
  });
}
