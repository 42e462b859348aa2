import { connectDatabase, type Db } from "@/db/client";

// What every server process does in the background (instrumentation.ts): no leader, no extra
// service. Each job gets its own small pool — not db/index.ts's, which is "server-only" and so
// not importable from the instrumentation hook — and repeats a pass every interval; a pass
// that found work runs again at once, so a busy job is drained back to back.

const started = globalThis as unknown as { claimboardBackground?: Set<string> };

export function repeatInBackground(job: { name: string; intervalMs: number; poolSize: number; pass: (db: Db) => Promise<number> }): void {
  started.claimboardBackground ??= new Set();
  if (started.claimboardBackground.has(job.name) || !process.env.DATABASE_URL) return;
  started.claimboardBackground.add(job.name);
  let db: Db | null = null;
  const tick = async () => {
    try {
      db ??= connectDatabase(process.env.DATABASE_URL!, { max: job.poolSize, applicationName: `claimboard-${job.name}` }).db;
      while ((await job.pass(db)) > 0);
    } catch (error) {
      console.error(`${job.name}: the background pass failed (${(error as Error)?.message ?? error}); trying again in ${job.intervalMs} ms`);
    }
    setTimeout(tick, job.intervalMs).unref();
  };
  setTimeout(tick, job.intervalMs).unref();
}
