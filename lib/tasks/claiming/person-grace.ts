import { sql, type SQL } from "drizzle-orm";
import type { Clock } from "../core/clock";
import type { ActorRef } from "../core/types";

// A person's holding follows the person (docs/contract.md, docs/attention.md "A person's lease"):
// when a person's lease lapses, people may claim the task at once, agents only once the
// queue's personGraceSeconds have passed since the lapse — the person who stepped away comes
// back to find it with a colleague, not taken by a machine 39 s later. Readiness code
// `person_grace`. Only the walks of lapsed leases read it (the targeted claim, claim-next's
// lapsed set): a queue with no lapsed lease keeps its one plain statement.

/** The task row `task_state` is a person's lapsed lease still inside the queue's grace. */
export const personGraceHolds = (clock: Clock): SQL => sql`EXISTS (
  SELECT 1 FROM actors holder JOIN queues grace ON grace.name = task_state.queue
  WHERE holder.id = task_state.owner_id AND holder.kind = 'user' AND grace.person_grace_seconds > 0
    AND task_state.lease_until + make_interval(secs => grace.person_grace_seconds) > ${clock.now()})`;

/** The condition on a lapsed candidate for `actor`: an agent steps over a person's lease in its grace. */
export const lapsedFor = (actor: ActorRef, clock: Clock): SQL => (actor.kind === "agent" ? sql`AND NOT ${personGraceHolds(clock)}` : sql``);
