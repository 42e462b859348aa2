import { sql, type SQL } from "drizzle-orm";
import type { Clock } from "../core/clock";

// The queue's lock delay (lockDelaySeconds, docs/contract.md#attempts-and-fences): after a lease lapses uncleanly, nobody
// may claim the task until the lapse + the delay — for downstream systems that cannot check a
// fence, so a frozen holder that wakes inside the delay still finds nobody else at work. Every
// reader of "has this lease lapsed far enough to take over?" asks through here: claim-next,
// the targeted claim (its own SQL, the same rule), the sweep, the ceiling's strikes, readiness.
// A clean end (release, fail, force-release) has no delay: its holder knows it stopped.

/** The latest lease_until that may be taken over now: now − the delay (a literal, so the walk stays an index range). */
export const lapseCutoff = (clock: Clock, lockDelaySeconds: number): SQL =>
  lockDelaySeconds > 0 ? sql`(${clock.now()} - make_interval(secs => ${lockDelaySeconds}))` : clock.now();
