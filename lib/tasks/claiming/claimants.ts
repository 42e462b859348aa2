import { sql } from "drizzle-orm";
import type { Claimants, Queue } from "@/db/schema";
import type { ActorRef, EngineError, Task } from "../core/types";

// Who may claim is a queue setting (`claimants`): anyone, people or agents. It is checked
// once per claim against the queue — never per candidate row — so claim-next stays an
// index walk; a targeted claim carries it in its one guarded statement.

/** The claimant kind an actor counts as; the system claims nothing. */
const kindOf = (actor: ActorRef): Claimants | null => (actor.kind === "user" ? "people" : actor.kind === "agent" ? "agents" : null);

export function mayClaim(claimants: Claimants, actor: ActorRef): boolean {
  return claimants === "anyone" || claimants === kindOf(actor);
}

/** SQL: the claimants values that admit this actor (for `q.claimants IN (…)`). */
export const admittingClaimants = (actor: ActorRef) =>
  sql`(${sql.join(["anyone", kindOf(actor) ?? "anyone"].map((k) => sql`${k}::claimants`), sql`, `)})`;

/** The 403 naming the rule, or null when the queue admits the caller. */
export function claimantRefusal(queue: Pick<Queue, "name" | "claimants">, actor: ActorRef, task?: Task): EngineError | null {
  if (mayClaim(queue.claimants, actor)) return null;
  const who = queue.claimants === "people" ? "people only" : "agents only";
  const caller = actor.kind === "agent" ? "an agent" : "a person";
  return {
    code: "forbidden",
    message: `Queue ${queue.name} is claimed by ${who} (claimants: ${queue.claimants}); ${caller} may not claim its tasks`,
    ...(task ? { task } : {}),
  };
}
