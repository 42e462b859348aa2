import "server-only";
import { getDatabase } from "@/db";
import { observeEvents } from "@/lib/metrics/registry";
import { nextDueIn } from "@/lib/tasks";
import { ClaimWaits } from "./claim-waits";
import { Hub } from "./hub";

const globalForHub = globalThis as unknown as { claimboardHub?: Promise<Hub>; claimboardClaimWaits?: ClaimWaits };

/**
 * The process's waiting claims (lib/realtime/claim-waits.ts), fed by the hub's batches;
 * present once the hub is. Its probes read through the pool, like the hub's reads.
 */
export async function getClaimWaits(): Promise<ClaimWaits> {
  await getHub();
  return globalForHub.claimboardClaimWaits!;
}

/**
 * The process's hub, started with the server (the lapse clock, lapse-start.ts) or on first use;
 * survives hot reload (one LISTEN connection).
 * LISTEN needs a session of its own, which a transaction-mode pooler does not give: it
 * goes to LISTEN_DATABASE_URL (the primary, directly) when set. The hub's reads of the
 * events go through the pool like every other query.
 */
export function getHub(): Promise<Hub> {
  if (!globalForHub.claimboardHub) {
    const url = process.env.LISTEN_DATABASE_URL || process.env.DATABASE_URL;
    if (!url) return Promise.reject(new Error("DATABASE_URL is not set"));
    const hub = new Hub({ db: () => getDatabase().db, url });
    hub.tap(observeEvents);
    const waits = (globalForHub.claimboardClaimWaits ??= new ClaimWaits((queue) => nextDueIn(getDatabase().db, queue)));
    hub.tap((events) => waits.onEvents(events));
    waits.caughtUp = () => hub.caughtUp;
    globalForHub.claimboardHub = hub.start().then(
      () => {
        endStreamsOnShutdown(hub);
        return hub;
      },
      (error: unknown) => {
        globalForHub.claimboardHub = undefined; // try again on the next connect
        throw error;
      },
    );
  }
  return globalForHub.claimboardHub;
}

/**
 * `next start` shuts down gracefully on SIGTERM/SIGINT: it waits for every open response
 * to finish, and an event stream never does, so the process would hang until killed (and
 * its clients with it). Stopping the hub ends every stream; clients reconnect, to the next
 * process, with Last-Event-ID; every waiting claim answers 204. Only beside a handler that exits (Next's): a listener of
 * ours alone would cancel the signal's default exit.
 */
function endStreamsOnShutdown(hub: Hub): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    if (process.listenerCount(signal) > 0) {
      process.once(signal, () => {
        // Waiting claims answer 204 at once: the agent's next wait goes to another instance.
        globalForHub.claimboardClaimWaits?.stop();
        void hub.stop();
      });
    }
  }
}
