import { connectDatabase, serverPoolOptions } from "@/db/client";
import { perform } from "@/lib/tasks/core/engine";
import { claimBatch, claimNext } from "@/lib/tasks/claiming/claim-next";
import { complete, completeAndClaimNext } from "@/lib/tasks/holding/complete";
import { completeMany } from "@/lib/tasks/holding/completions";
import { createActor } from "@/lib/tasks/core/actors";
import { recordEffect, resolveEffect } from "@/lib/tasks/effects/effects";
import { seconds } from "./lib/stats";

/**
 * The engine called directly, as an in-process agent would: `workers` loops share one pool,
 * the size of the server's unless `pool` says otherwise; each works the queue dry — one
 * transaction per task (complete and claim next), or per batch of `batch` (claim N, then
 * complete N).
 * Returns completed tasks per second; `cpu`, when given, receives this process's CPU ms per task.
 * `window`, when given, is opened once the pool and the actor are set up and closed when the
 * queue is dry: what happens between is the drain alone (bench/wal.ts counts its WAL).
 */
export async function engineDrain(
  url: string,
  opts: {
    workers: number; total: number; batch?: number; prepare?: boolean;
    /** Its connections: the server's pool (serverPoolOptions: DB_POOL_SIZE, else 6) unless given. */
    pool?: number; window?: { open(): Promise<void>; close(): Promise<void> };
    /** One effect a task, as the reference agent's --effects: an intent recorded before the "call", resolved applied after it. */
    effects?: boolean;
    /**
     * Tasks worked first, before the window and the clock, by the loop's own calls on the same
     * pool, so the process's JIT and the connections' caches and plans are warm, as a running
     * server's are. The queue must hold `total` + `warmup` tasks. Not with `batch` or `effects`.
     */
    warmup?: number;
  },
  cpu?: (msPerTask: number) => void,
): Promise<number> {
  const connections = opts.pool ?? serverPoolOptions().max;
  const { db, client } = connectDatabase(url, { max: connections, applicationName: "bench-engine", prepare: opts.prepare });
  try {
    const actor = await createActor(db, "agent", `bench-${opts.workers}`);
    let done = 0;
    const must = <T>(what: string, r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
      if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
      return r.value;
    };
    // The agent loop as the reference agent runs it: claim+start once, then each completion
    // claims and starts the next in the same transaction; in batches, claim N → complete N.
    const worker = async () => {
      if (opts.batch) {
        for (;;) {
          const tasks = must("claimBatch", await perform(claimBatch, { limit: opts.batch, start: true }, { db, actor }));
          if (tasks.length === 0) return;
          const results = must("completeMany", await perform(completeMany, { tasks: tasks.map((t) => ({ id: t.id, version: t.version })) }, { db, actor }));
          const refused = results.find((r) => !r.ok);
          if (refused && !refused.ok) throw new Error(`completeMany: ${refused.error.message}`);
          done += results.length;
        }
      }
      let task = must("claimNext", await perform(claimNext, { start: true }, { db, actor }));
      while (task) {
        if (opts.effects) {
          const { effect } = must("recordEffect", await perform(recordEffect, { taskId: task.id, version: task.version, name: "charge", key: `order-${task.id}` }, { db, actor }));
          must("resolveEffect", await perform(resolveEffect, { taskId: task.id, effectId: effect.id, version: task.version, state: "applied", externalRef: `ch_${task.id}` }, { db, actor }));
        }
        const answer = must("complete", await perform(completeAndClaimNext, { taskId: task.id, version: task.version, next: { start: true } }, { db, actor }));
        done++;
        task = answer.next ?? null;
      }
    };
    // Open the pool first: connection set-up is not part of an agent cycle.
    await Promise.all(Array.from({ length: Math.min(opts.workers, connections) }, () => client`SELECT 1`));
    if (opts.warmup) {
      // Each warm-up worker: claim, complete-and-claim-next until the share is spent, complete.
      let left = opts.warmup;
      await Promise.all(Array.from({ length: Math.min(opts.workers, opts.warmup) }, async () => {
        left--;
        let task = must("claimNext", await perform(claimNext, { start: true }, { db, actor }));
        while (task && left > 0) {
          left--;
          task = must("complete", await perform(completeAndClaimNext, { taskId: task.id, version: task.version, next: { start: true } }, { db, actor })).next ?? null;
        }
        if (task) must("complete", await perform(complete, { taskId: task.id, version: task.version }, { db, actor }));
      }));
    }
    await opts.window?.open();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: opts.workers }, worker));
    const elapsed = seconds(t0);
    await opts.window?.close();
    const used = process.cpuUsage(cpu0);
    cpu?.((used.user + used.system) / 1000 / done);
    if (done !== opts.total) throw new Error(`engine drained ${done} of ${opts.total} tasks`);
    return done / elapsed;
  } finally {
    await client.end();
  }
}
