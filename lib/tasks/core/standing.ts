import type { TokenRole, UserRole } from "@/db/schema";

/** "An agent", "A supervisor": the article a role's name takes in a sentence. */
export const article = (word: string) => (/^[aeiou]/i.test(word) ? "An" : "A");

/**
 * Who is calling, as the engine sees it. Each surface derives it once: a server action from
 * the signed-in person's role as the database says now, the API from the bearer token's role
 * (a session cookie is an observer), MCP from its token, the CLI is the operator (whoever
 * holds the database). Operations declare which standings may perform them (`who`); the
 * surfaces never decide that themselves (docs/security.md, "Who may do what").
 */
export const STANDINGS = ["staff", "supervisor", "agent", "observer", "operator"] as const;
export type Standing = (typeof STANDINGS)[number];

/** The board's work: creating, claiming, working and editing tasks, and commenting. */
export const WORKERS: readonly Standing[] = ["staff", "supervisor", "agent", "operator"];
/** Supervision: the inbox's decisions, queues, the breaker, people and tokens. */
export const SUPERVISORS: readonly Standing[] = ["supervisor", "operator"];
/** Reads that are operations (readiness): anyone who may call at all. */
export const EVERYONE: readonly Standing[] = STANDINGS;

/** A person's standing: their role (re-read from the database by the caller). */
export const personStanding = (role: UserRole): Standing => role;

/** A bearer token's standing: its role. The token roles are standings of the same name. */
export const tokenStanding = (role: TokenRole): Standing => role;

/** Who may edit any task, not only one they created or held last. */
export const editsAnyTask = (standing: Standing | undefined) => standing === "supervisor" || standing === "operator";

/**
 * The refusal of a standing an operation does not admit, in the words the guards used before
 * the engine decided: a token hears which of its calls it may not make, a person which role may.
 */
export function refusalMessage(name: string, who: readonly Standing[], standing: Standing): string {
  if (standing === "agent" || standing === "observer") return `${article(standing)} ${standing} token may not call ${name}`;
  return `Only a ${who.includes("supervisor") ? "supervisor" : "operator"} may do this`;
}
