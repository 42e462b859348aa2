import { sql, type SQL } from "drizzle-orm";
import type { Clock } from "../core/clock";
import type { ActorRef } from "../core/types";

// A person's holding follows the person (docs/contract.md, docs/attention.md "A person's lease"):
// when a person's lease lapses, people may claim the task at once, agents only once the
// queue's personGraceSeconds have passed since the lapse — the person who stepped away comes
// back to find it with a colleague, not taken by a machine 39 s later. Readiness code
// `person_grace`. Only the walks of lapsed leases read it (the targeted claim, claim-next's
// lapsed set, the sweep): a queue with no lapsed lease keeps its one plain statement. The
// sweep honours it too: a lapse it wrote (→ queued) would hand the task to the next agent.

/** The task row `alias` (a task_state row) is a person's lapsed lease still inside the queue's grace. */
export const personGraceHolds = (clock: Clock, alias = "task_state"): SQL => {
  const t = sql.raw(alias);
  return sql`EXISTS (
  SELECT 1 FROM actors holder JOIN queues grace ON grace.name = ${t}.queue
  WHERE holder.id = ${t}.owner_id AND holder.kind = 'user' AND grace.person_grace_seconds > 0
    AND ${t}.lease_until + make_interval(secs => grace.person_grace_seconds) > ${clock.now()})`;
};

/** The condition on a lapsed candidate for `actor`: an agent steps over a person's lease in its grace. */
export const lapsedFor = (actor: ActorRef, clock: Clock): SQL => (actor.kind === "agent" ? sql`AND NOT ${personGraceHolds(clock)}` : sql``);
