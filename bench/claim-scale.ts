import { TransactionRollbackError } from "drizzle-orm";
import { connectDatabase } from "@/db/client";
import { claimNext } from "@/lib/tasks/claiming/claim-next";
import { databaseClock } from "@/lib/tasks/core/clock";
import { BENCH_AGENT } from "./lib/seed";
import { percentile } from "./lib/stats";

/**
 * p50 (ms) of `claims` engine claim-next transactions, one after another, each rolled back
 * so every claim sees the same table (the lapsed leases stay lapsed, the queued stay queued).
 */
export async function claimP50(url: string, claims: number): Promise<number> {
  const { db, client } = connectDatabase(url, { max: 1, applicationName: "bench-claim-scale" });
  try {
    const times: number[] = [];
    for (let i = 0; i < claims; i++) {
      const t0 = performance.now();
      await db
        .transaction(async (tx) => {
          const r = await claimNext.run(tx, { queue: "default" }, { actor: BENCH_AGENT, clock: databaseClock });
          if (!r.ok || !r.value) throw new Error(`claimNext claimed nothing: ${JSON.stringify(r)}`);
          tx.rollback();
        })
        .catch((e: unknown) => {
          if (!(e instanceof TransactionRollbackError)) throw e;
        });
      times.push(performance.now() - t0);
    }
    return percentile(times, 50);
  } finally {
    await client.end();
  }
}
