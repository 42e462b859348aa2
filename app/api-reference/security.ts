import { rolesOf } from "@/lib/http/access";
import { endpoints, type Endpoint } from "@/lib/http/endpoints";
import { limits } from "@/lib/http/rate-limit";
import { DEFAULT_TOKEN_DAYS } from "@/lib/auth/tokens";

// The reference's Authentication and Limits text, made from the registry (who may call what)
// and the limits module (the numbers in force), so the page cannot promise what the server
// does not do (app/api-reference/security.test.ts).

type TokenRoleName = "agent" | "observer" | "supervisor";
const ROLES: TokenRoleName[] = ["supervisor", "agent", "observer"];

export interface RoleAccess {
  allowed: Endpoint[];
  refused: Endpoint[];
}

/** Per token role, the endpoints it may and may not call; and those that need no token. */
export function roleAccess(): Record<TokenRoleName, RoleAccess> & { public: Endpoint[] } {
  const all = Object.values(endpoints) as Endpoint[];
  const authed = all.filter((e) => rolesOf(e) !== "public");
  const byRole = Object.fromEntries(
    ROLES.map((role) => [role, {
      allowed: authed.filter((e) => (rolesOf(e) as string[]).includes(role)),
      refused: authed.filter((e) => !(rolesOf(e) as string[]).includes(role)),
    }]),
  ) as Record<TokenRoleName, RoleAccess>;
  return { ...byRole, public: all.filter((e) => rolesOf(e) === "public") };
}

/** One sentence per role: how many endpoints, and which it may not call when that is the shorter list. */
export function roleLines(): string[] {
  const access = roleAccess();
  const name = (e: Endpoint) => `${e.method} ${e.path}`;
  const lines = ROLES.map((role) => {
    const { allowed, refused } = access[role];
    if (refused.length === 0) return `${role} tokens: all ${allowed.length} authenticated endpoints.`;
    if (refused.length <= allowed.length) return `${role} tokens: ${allowed.length} endpoints — all but ${refused.map(name).join(", ")} (403 forbidden).`;
    return `${role} tokens: only ${allowed.map(name).join(", ")}; anything else answers 403 forbidden.`;
  });
  lines.push(`No token: ${access.public.map(name).join(", ")}.`);
  return lines;
}

/** The limits in force, in words. */
export function limitLines(): string[] {
  const { perToken, failedAuth } = limits();
  return [
    `Per token (and per signed-in person, server actions included): ${perToken.perSecond} requests a second sustained, bursts of ${perToken.capacity} (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST). Over it: 429 rate_limited with Retry-After in seconds.`,
    `Failed authentications: ${Math.round(failedAuth.perSecond * 60)} a minute per client address, bursts of ${failedAuth.capacity} (AUTH_FAILURES_PER_MINUTE, AUTH_FAILURE_BURST). While an address is over it, every authenticated call from it answers 429, even with a good token.`,
    "Both are kept in PostgreSQL (rate_buckets), so they hold across every server instance.",
  ];
}

/** How a token stops working. */
export const TOKEN_LIFE = `A token stops working (401 unauthorized) when it is revoked, when it expires (new tokens: after ${DEFAULT_TOKEN_DAYS} days unless their maker chose otherwise), or when the person who made it is disabled or is no longer a supervisor.`;
