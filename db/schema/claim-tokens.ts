import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid, type AnyPgColumn } from "drizzle-orm/pg-core";
import { agentTokens } from "./people";
import { taskState } from "./tasks";

/**
 * Claim-scoped tokens (docs/contract.md#claim-scoped-tokens, docs/security.md "Claim tokens"): a `cbc_` bearer token
 * bound to one task and one attempt of it, acting as the agent token that minted it, for the
 * ops listed. Only the SHA-256 of the secret is kept. Nothing marks a token dead: it is dead
 * the moment its attempt is no longer the task's live holding, which every request reads
 * from the task row itself (lib/auth/claim-tokens.ts), so no job has to end it.
 */
export const claimTokens = pgTable(
  "claim_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Hex SHA-256 of the whole token; the lookup key. */
    tokenHash: text("token_hash").notNull(),
    /** The agent token it acts as (and is rate-limited as); revoking that one ends this one. */
    agentTokenId: uuid("agent_token_id").notNull().references(() => agentTokens.id),
    taskId: bigint("task_id", { mode: "bigint" }).notNull().references(() => taskState.id),
    attempt: integer("attempt").notNull(),
    /** What it may do: a subset of read, progress, effects, complete, fail, release, comment, ask. */
    ops: text("ops").array().notNull(),
    /** The claim token it was narrowed from, if any. */
    parentId: uuid("parent_id").references((): AnyPgColumn => claimTokens.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("claim_tokens_hash_unique").on(t.tokenHash), index("claim_tokens_task").on(t.taskId, t.attempt)],
);
