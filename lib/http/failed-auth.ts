import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { hashToken } from "@/lib/auth/tokens";
import { clientAddress, UNKNOWN_ADDRESS } from "./client-address";
import { addressKey } from "./rate-limit";

// Which failed-authentication bucket a refused caller is charged to (docs/security.md, "Rate
// limits for callers without a valid token"). Behind a trusted proxy (TRUST_PROXY=1) it is the
// caller's address. Without one every caller looks alike, so the key is what the caller
// presented, and one anonymous flood limits only itself:
// - no credential at all: no charge — nothing was guessed and nothing looked up, and an MCP
//   client's first, token-less request (OAuth discovery) must always hear its 401;
// - a token this server issued that is no longer good (expired, revoked, its attempt ended): its
//   own bucket, by its digest, as large as a live token's — a client retrying a stale token
//   hears its 401 (and refreshes), never a 429 for what others sent;
// - anything else (a malformed or unknown token): one shared bucket, the guessers'.

/** The header a refusal carries, 401 or 429 alike, so a client always learns how to authenticate. */
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="claimboard", error="invalid_token"';

/** The bucket to charge and which of limits() sizes it; null: no charge. */
export interface FailedAuthBucket { key: string; limit: "failedAuth" | "perToken" }

export async function failedAuthKey(db: Executor, bearer: string | null, header: (name: string) => unknown): Promise<FailedAuthBucket | null> {
  if (!bearer) return null;
  const address = clientAddress(header);
  if (address !== UNKNOWN_ADDRESS) return { key: addressKey(address), limit: "failedAuth" };
  if (bearer.length <= 100) {
    const digest = hashToken(bearer);
    const [row] = await db.execute<{ known: boolean }>(sql`
      SELECT EXISTS (SELECT 1 FROM agent_tokens WHERE token_hash = ${digest})
          OR EXISTS (SELECT 1 FROM claim_tokens WHERE token_hash = ${digest}) AS known`);
    if (row?.known) return { key: `auth:issued:${digest.slice(0, 32)}`, limit: "perToken" };
  }
  return { key: addressKey(UNKNOWN_ADDRESS), limit: "failedAuth" };
}
