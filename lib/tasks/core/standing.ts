import type { TokenRole, UserRole } from "@/db/schema";
import { MOVES, type MoveName, type Who } from "./machine";

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

/** People only, not a token: their own account and notifications. */
export const PEOPLE: readonly Standing[] = ["staff", "supervisor"];

/**
 * The machine's relations (machine.ts `Who`) as the standings that may try the move; the move's
 * own rule then decides among them (the owner's lease, the editor's rule, the reviewer rule,
 * answerable.ts's). A `person` is staff or a supervisor (a supervisor's token stands as one),
 * or the operator at the CLI — never an agent token. The system's moves are no caller's.
 */
const RELATION: Record<Exclude<Who, "system">, readonly Standing[]> = {
  owner: WORKERS, claimant: WORKERS, editor: WORKERS, anyone: WORKERS, reviewer: WORKERS,
  supervisor: SUPERVISORS, person: ["staff", "supervisor", "operator"],
};

/**
 * The standings that may make every one of `moves`: an operation that makes them takes this as
 * its `who` (defineOperation's `makes`). A system move has no caller, so naming one is a bug.
 */
export function mayMake(...moves: readonly MoveName[]): readonly Standing[] {
  return moves.reduce<readonly Standing[]>((admitted, move) => {
    const who = MOVES[move].who;
    if (who === "system") throw new Error(`${move} is the system's move: no operation makes it for a caller`);
    return admitted.filter((standing) => RELATION[who].includes(standing));
  }, STANDINGS);
}

/** The token roles, in the order the API publishes them (x-roles). */
const TOKEN_ROLES = ["observer", "agent", "supervisor"] as const satisfies readonly TokenRole[];
/** The person roles, least first. */
const PERSON_ROLES = ["staff", "supervisor"] as const satisfies readonly UserRole[];

/** The bearer tokens whose standing `who` admits: an endpoint's roles (lib/http/access.ts). */
export const tokenRoles = (who: readonly Standing[]): TokenRole[] => TOKEN_ROLES.filter((role) => who.includes(tokenStanding(role)));

/** The people whose standing `who` admits: who a server action is for (lib/auth/action.ts). */
export const personRoles = (who: readonly Standing[]): UserRole[] => PERSON_ROLES.filter((role) => who.includes(personStanding(role)));

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
