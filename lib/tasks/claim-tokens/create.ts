import { sql } from "drizzle-orm";
import { insertClaimToken } from "@/lib/auth/claim-tokens";
import { explainMiss } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { WORKERS } from "../core/standing";
import { ownerTransition } from "../core/transition";
import { fail, ok, type Result } from "../core/types";
import { CLAIM_OPS, createClaimTokenInput, type ClaimOp } from "./ops";

// POST /tasks/{id}/claim-tokens (docs/contract.md#claim-scoped-tokens, docs/security.md "Claim tokens"): the owner of a
// held task mints a token bound to the task and its current attempt, for a sub-agent or a
// sub-process. A claim token may mint one for itself with fewer ops (never more). The task is
// not changed (no version, no event: the token is a credential, and credentials stay out of the
// log); the owner, the version named and a valid lease are checked as for a heartbeat.

const owning = ownerTransition("renew");

export interface CreatedClaimToken {
  /** The secret: shown once, never stored. */
  claimToken: string;
  ops: ClaimOp[];
  taskId: string;
  attempt: number;
}

export const createClaimToken = defineOperation({
  name: "createClaimToken",
  who: WORKERS,
  input: createClaimTokenInput,
  async run(tx, input, { actor, clock }): Promise<Result<CreatedClaimToken>> {
    const within = input.narrowing?.ops ?? CLAIM_OPS;
    const ops = input.ops ?? [...within];
    const added = ops.filter((op) => !within.includes(op));
    if (added.length > 0) {
      return fail({
        code: "invalid_request",
        message: `ops may only narrow this claim token's (${within.join(", ")}), not add ${added.join(", ")}`,
        field: "ops",
      });
    }
    const now = clock.now();
    // FOR SHARE: an ending of the attempt (complete, release, a lapse taken over) waits for this
    // mint, so no token is minted for an attempt that ended in the meantime.
    const [held] = await tx.execute<{ attempt: number }>(sql`
      SELECT t.attempt FROM task_state t JOIN queues q ON q.name = t.queue
      WHERE t.id = ${input.taskId}::bigint AND ${owning.guard(actor, input.version, now)}
      FOR SHARE OF t`);
    if (!held) {
      const missed = await explainMiss(tx, clock, owning.expected(input, actor, { verb: "mint a claim token for", doneBy: [] }));
      return missed.ok
        ? fail({ code: "invalid_transition", message: `Task ${input.taskId} is not held by you: no claim token for it`, task: missed.value })
        : missed;
    }
    const attempt = Number(held.attempt);
    const made = await insertClaimToken(tx, { agentTokenId: input.agentTokenId, taskId: input.taskId, attempt, ops, parentId: input.narrowing?.id });
    return ok({ claimToken: made.claimToken, ops: [...ops], taskId: input.taskId, attempt });
  },
});
