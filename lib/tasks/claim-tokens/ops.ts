import { z } from "zod";
import { taskId, version } from "../core/schemas";

// What a claim token may do (docs/contract.md#claim-scoped-tokens, docs/security.md). Pure, so
// the typed client, the CLI and the MCP server import the names too.

/** The ops a claim token may be given; `progress` is the heartbeat (and start), `ask` a question to a person. */
export const CLAIM_OPS = ["read", "progress", "effects", "complete", "fail", "release", "comment", "ask"] as const;
export type ClaimOp = (typeof CLAIM_OPS)[number];

/** Claim tokens read `cbc_` + 43 base64url characters (256 random bits). */
export const CLAIM_TOKEN_PREFIX = "cbc_";

export const claimOps = z
  .array(z.enum(CLAIM_OPS, `must each be one of ${CLAIM_OPS.join(", ")}`))
  .min(1, "must name at least one op")
  .max(CLAIM_OPS.length)
  .refine((ops) => new Set(ops).size === ops.length, "must not name an op twice");

/** POST /tasks/{id}/claim-tokens {version, ops?}. */
export const claimTokenBody = z.strictObject({
  version,
  ops: claimOps.optional(),
});

export const createClaimTokenInput = claimTokenBody.extend({
  taskId,
  /** The agent token the new one acts as (the surface's caller, never the body's). */
  agentTokenId: z.uuid(),
  /** When a claim token narrows itself: its id and ops; the new ops must be among them. */
  narrowing: z.object({ id: z.uuid(), ops: z.array(z.enum(CLAIM_OPS)) }).optional(),
});
export type CreateClaimTokenInput = z.infer<typeof createClaimTokenInput>;
