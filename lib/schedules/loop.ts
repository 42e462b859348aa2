import { connectDatabase, type Db } from "@/db/client";
import { runDueSchedules } from "./tick";

// Every server process ticks the schedules (instrumentation.ts starts this): no leader, no
// cron box. An idle tick is one probe of the partial index schedules_due.

const INTERVAL_MS = Number(process.env.SCHEDULES_POLL_MS ?? 5000);
const started = globalThis as unknown as { claimboardScheduleTicks?: boolean };

export function startScheduleTicks(): void {
  if (started.claimboardScheduleTicks || !process.env.DATABASE_URL) return;
  started.claimboardScheduleTicks = true;
  let db: Db | null = null;
  const tick = async () => {
    try {
      db ??= connectDatabase(process.env.DATABASE_URL!, { max: 1, applicationName: "claimboard-schedules" }).db;
      while ((await runDueSchedules(db)) > 0);
    } catch (error) {
      console.error(`schedules: the tick failed (${(error as Error)?.message ?? error}); trying again in ${INTERVAL_MS} ms`);
    }
    setTimeout(tick, INTERVAL_MS).unref();
  };
  setTimeout(tick, INTERVAL_MS).unref();
}
