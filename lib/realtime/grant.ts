import "server-only";
import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { agentTokens } from "@/db/schema";
import { TOKEN_LIVE, type TokenPrincipal } from "@/lib/auth/tokens";
import { findUserAccount } from "@/lib/auth/users";

/**
 * How often an open event stream re-checks the grant it was opened under (a token still
 * unrevoked, a person still enabled in the same role); it ends when that is gone. A
 * revocation, a disable or a role change reaches open streams within this much.
 */
export const STREAM_GRANT_CHECK_MS = Math.max(100, Math.floor(Number(process.env.STREAM_GRANT_CHECK_MS)) || 30_000);

/**
 * What the caller's grant rests on now, or null when it is gone: the token's role while it
 * is live (not revoked or expired, its maker still an enabled supervisor: TOKEN_LIVE); a person's role and session generation while they are enabled. A stream compares this with what
 * it was at opening, so a demoted supervisor's stream ends too (and reconnects as staff).
 */
export async function currentGrant(db: Executor, principal: TokenPrincipal): Promise<string | null> {
  if (principal.tokenId.startsWith("session:")) {
    const account = await findUserAccount(db, principal.actor.id);
    // The session generation too: a password change, reset or disable ends an open stream of an
    // ended session (lib/auth/session.ts); the session that goes on reconnects with its new cookie.
    return account && !account.disabled ? `person:${account.role}:${account.sessionGeneration}` : null;
  }
  const [token] = await db
    .select({ role: agentTokens.role })
    .from(agentTokens)
    .where(and(eq(agentTokens.id, principal.tokenId), TOKEN_LIVE));
  return token ? `token:${token.role}` : null;
}
