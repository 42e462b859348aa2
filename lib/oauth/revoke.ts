import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agentTokens, oauthConnections, oauthRefreshTokens } from "@/db/schema";
import { hashToken } from "@/lib/auth/tokens";
import { findClient } from "./clients";
import { fail, type OAuthFailure } from "./errors";
import { revokeConnection } from "./grants";

// Token revocation by the client (RFC 7009): a client signing out hands back its refresh
// or access token, and the whole connection ends (its agent token, every refresh token),
// audited. A token that is unknown, already revoked or another client's changes nothing and
// is answered the same way (§2.2), so the endpoint tells nobody which tokens exist.

export async function revokeByClient(db: Db, clientId: string, token: string): Promise<{ ok: true } | { ok: false; failure: OAuthFailure }> {
  const client = await findClient(db, clientId);
  if (!client) return { ok: false, failure: fail("invalid_client", "Unknown client_id") };
  const digest = hashToken(token);
  await db.transaction(async (tx) => {
    const [byRefresh] = await tx
      .select({ id: oauthConnections.id })
      .from(oauthRefreshTokens)
      .innerJoin(oauthConnections, eq(oauthConnections.id, oauthRefreshTokens.connectionId))
      .where(and(eq(oauthRefreshTokens.tokenHash, digest), eq(oauthConnections.clientId, client.id)));
    const [byAccess] = byRefresh
      ? [byRefresh]
      : await tx
          .select({ id: oauthConnections.id })
          .from(agentTokens)
          .innerJoin(oauthConnections, eq(oauthConnections.tokenId, agentTokens.id))
          .where(and(eq(agentTokens.tokenHash, digest), eq(oauthConnections.clientId, client.id)));
    if (byAccess) await revokeConnection(tx, byAccess.id, "revoked by the client");
  });
  return { ok: true };
}
