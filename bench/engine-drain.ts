import { connectDatabase } from "@/db/client";
import { perform } from "@/lib/tasks/engine";
import { claimBatch, claimNext } from "@/lib/tasks/claim-next";
import { complete } from "@/lib/tasks/complete";
import { createActor } from "@/lib/tasks/actors";
import { seconds } from "./lib/stats";

/**
 * The engine called directly, as an in-process agent would: `workers` loops share one pool
 * of `workers` connections; each claims (claim-next with start, or a batch of `batch`)
 * and completes what it got, one transaction per call, until the queue is empty.
 * Returns completed tasks per second; `cpu`, when given, receives this process's CPU ms per task.
 */
export async function engineDrain(
  url: string,
  opts: { workers: number; total: number; batch?: number; prepare?: boolean },
  cpu?: (msPerTask: number) => void,
): Promise<number> {
  const { db, client } = connectDatabase(url, { max: opts.workers, applicationName: "bench-engine", prepare: opts.prepare });
  try {
    const actor = await createActor(db, "agent", `bench-${opts.workers}`);
    let done = 0;
    const worker = async () => {
      for (;;) {
        const tasks = [];
        if (opts.batch) {
          const r = await perform(claimBatch, { limit: opts.batch, start: true }, { db, actor });
          if (!r.ok) throw new Error(`claimBatch: ${r.error.message}`);
          tasks.push(...r.value);
        } else {
          const r = await perform(claimNext, { start: true }, { db, actor });
          if (!r.ok) throw new Error(`claimNext: ${r.error.message}`);
          if (r.value) tasks.push(r.value);
        }
        if (tasks.length === 0) return;
        for (const task of tasks) {
          const c = await perform(complete, { taskId: task.id, version: task.version }, { db, actor });
          if (!c.ok) throw new Error(`complete: ${c.error.message}`);
          done++;
        }
      }
    };
    // Open the pool first: connection set-up is not part of an agent cycle.
    await Promise.all(Array.from({ length: opts.workers }, () => client`SELECT 1`));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: opts.workers }, worker));
    const elapsed = seconds(t0);
    const used = process.cpuUsage(cpu0);
    cpu?.((used.user + used.system) / 1000 / done);
    if (done !== opts.total) throw new Error(`engine drained ${done} of ${opts.total} tasks`);
    return done / elapsed;
  } finally {
    await client.end();
  }
}
