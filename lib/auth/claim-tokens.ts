import { sql } from "drizzle-orm";
import type { Executor, Tx } from "@/db/client";
import { HELD, PARKED, CLAIM_TOKEN_PREFIX, type ClaimOp } from "@/lib/tasks/model";
// eslint-disable-next-line no-restricted-imports -- the index imports this file back (an import cycle): deep path kept
import { statusIn } from "@/lib/tasks/core/transition";
import type { Limit } from "@/lib/http/rate-limit";
import { countedLookup, hashToken, newTokenSecret, principalOf, TOKEN_LIVE, type CountedRow, type TokenPrincipal } from "./tokens";

// Claim-scoped tokens at rest and at the door (docs/security.md "Claim tokens"). A claim token
// is stored as the SHA-256 of its secret, like an agent token, and looked up, compared and
// rate-limited by the same code (lib/auth/tokens.ts): as the agent token that minted it, in
// that token's bucket, dead with it. Whether its attempt still holds the task is read from the
// task row in the same statement, so the token dies the moment the attempt ends — nothing
// has to revoke it.

/**
 * The statuses in which the attempt that took the task still holds it: the held ones, and a
 * task parked on a question to a person (awaiting_input keeps its owner and attempt).
 */
const ATTEMPT_LIVE = statusIn([...HELD, ...PARKED]);

export interface ClaimScope {
  id: string;
  taskId: string;
  attempt: number;
  ops: ClaimOp[];
  /** The attempt still holds the task (same attempt, same owner, a holding status). */
  live: boolean;
}

export interface ClaimPrincipal extends TokenPrincipal {
  claim: ClaimScope;
}

interface ClaimRow extends CountedRow {
  claim_id: string;
  task_id: string;
  attempt: number;
  ops: ClaimOp[];
  live: boolean;
}

/**
 * A `cbc_` bearer token's principal — the agent token it acts as, with its scope — and the
 * take from that agent token's rate limit; null for a malformed, unknown one, or one whose
 * agent token is no longer live. A dead attempt is not null: the caller answers claim_ended.
 */
export async function authenticateClaimToken(
  db: Executor,
  token: string,
  limit: Limit,
): Promise<{ principal: ClaimPrincipal; wait: number } | null> {
  if (!token.startsWith(CLAIM_TOKEN_PREFIX) || token.length > 100) return null;
  const counted = await countedLookup<ClaimRow>(db, hashToken(token), limit, (digest) => sql`
      SELECT agent_tokens.id, agent_tokens.role, ct.token_hash, a.id AS actor_id, a.name AS actor_name, a.kind AS actor_kind,
             ct.id AS claim_id, ct.task_id::text AS task_id, ct.attempt, ct.ops,
             (t.attempt = ct.attempt AND t.owner_id = agent_tokens.actor_id AND ${ATTEMPT_LIVE}) AS live
      FROM claim_tokens ct
      JOIN agent_tokens ON agent_tokens.id = ct.agent_token_id
      JOIN actors a ON a.id = agent_tokens.actor_id
      JOIN tasks t ON t.id = ct.task_id
      WHERE ct.token_hash = ${digest} AND ${TOKEN_LIVE}`);
  if (!counted) return null;
  const { row } = counted;
  return {
    principal: {
      ...principalOf(row),
      claim: { id: row.claim_id, taskId: row.task_id, attempt: Number(row.attempt), ops: row.ops, live: row.live === true },
    },
    wait: counted.wait,
  };
}

/** A new claim token's row; the secret is returned once and never stored. */
export async function insertClaimToken(
  tx: Tx,
  input: { agentTokenId: string; taskId: string; attempt: number; ops: readonly ClaimOp[]; parentId?: string },
): Promise<{ claimToken: string; id: string }> {
  const { token, tokenHash } = newTokenSecret(CLAIM_TOKEN_PREFIX);
  const [row] = await tx.execute<{ id: string }>(sql`
    INSERT INTO claim_tokens (token_hash, agent_token_id, task_id, attempt, ops, parent_id)
    VALUES (${tokenHash}, ${input.agentTokenId}::uuid, ${input.taskId}::bigint, ${input.attempt},
            ${`{${input.ops.join(",")}}`}::text[], ${input.parentId ?? null}::uuid)
    RETURNING id::text`);
  return { claimToken: token, id: row!.id };
}
