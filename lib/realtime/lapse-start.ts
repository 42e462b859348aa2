import "server-only";
import { getDatabase } from "@/db";
import { getHub } from "./index";
import { LapseClock } from "./lapse-clock";

// Starts this process's lapse clock (instrumentation.ts, beside the webhook sender and the
// schedule ticks): every server process runs one, with no leader. It hears claims and renewals
// through this process's hub — started here, so its one LISTEN is the clock's too — and
// queries through the server's pool (one short transaction at each lease end, none between).

const started = globalThis as unknown as { claimboardLapseClock?: LapseClock };
/** The hub could not be started (the database is away): try again this much later. */
const HUB_RETRY_MS = 5_000;

export function startLapseClock(): void {
  if (started.claimboardLapseClock || !process.env.DATABASE_URL || process.env.LAPSE_CLOCK === "off") return;
  const clock = new LapseClock({ db: () => getDatabase().db, log: (line) => console.error(line) });
  started.claimboardLapseClock = clock;
  const connect = () =>
    getHub().then(
      (hub) => {
        hub.tap((events) => clock.heard(events));
        hub.onHeldBack(() => clock.heldBack());
        clock.start();
      },
      (error: unknown) => {
        console.error(`[lapse-clock] the event hub did not start (${(error as Error)?.message ?? error}); trying again in ${HUB_RETRY_MS} ms`);
        setTimeout(connect, HUB_RETRY_MS).unref();
      },
    );
  void connect();
  // Beside Next's own handlers, which exit (a listener of ours alone would cancel the default
  // exit): no firing starts after the signal; one in flight commits or rolls back whole.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    if (process.listenerCount(signal) > 0) process.once(signal, () => void clock.stop());
  }
}
