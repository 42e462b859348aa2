import { repeatInBackground } from "@/lib/background";
import { runDueSchedules } from "./tick";

// Every server process ticks the schedules (instrumentation.ts starts this): no cron box. An
// idle tick is one probe of the partial index schedules_due.
export function startScheduleTicks(): void {
  repeatInBackground({ name: "schedules", intervalMs: Number(process.env.SCHEDULES_POLL_MS ?? 5000), poolSize: 1, pass: (db) => runDueSchedules(db) });
}
