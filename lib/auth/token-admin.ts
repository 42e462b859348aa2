import { z } from "zod";
import { tokenRole } from "@/db/schema";
import { defineOperation, setMonthlyBudgetRow } from "@/lib/tasks";
import { SUPERVISORS, fail, ok, budget } from "@/lib/tasks/model";
import { recordAudit } from "./audit";
import { insertToken, liveNameTaken, revokeLiveToken, tokenExpiry, tokenName } from "./tokens";

// Agent tokens made and revoked by supervisors (the agents page) and the CLI's operator, as
// engine operations: each writes its audit record (lib/auth/audit.ts) in its transaction.
// No "server-only": the CLI runs these outside Next.js, as it does tokens.ts.

export const createTokenInput = z.strictObject({
  name: tokenName,
  role: z.enum(tokenRole.enumValues).optional(),
  /** Days until it expires; omitted: DEFAULT_TOKEN_DAYS (90); null: never. */
  expiresInDays: tokenExpiry.optional(),
  /** The agent's cap a calendar month (docs/budgets.md). */
  monthlyBudget: budget.optional(),
});
export const revokeTokenInput = z.strictObject({ name: tokenName });

/** A new token: its secret is in the answer only, never in the audit record (its prefix is). */
export const createToken = defineOperation({
  name: "createToken",
  who: SUPERVISORS,
  input: createTokenInput,
  async run(tx, input, { actor }) {
    const created = await insertToken(tx, { ...input, createdBy: actor.id });
    if (!created) return fail({ code: "invalid_request", message: liveNameTaken(input.name), field: "name" });
    if (input.monthlyBudget) await setMonthlyBudgetRow(tx, input.name, input.monthlyBudget);
    await recordAudit(tx, actor, {
      action: "token_created",
      subject: { kind: "token", id: created.id, name: created.name },
      detail: { role: created.role, prefix: created.prefix, expiresAt: created.expiresAt?.toISOString() ?? null },
    });
    return ok(created);
  },
});

/** Revokes the live token of that name; it is refused from the very next request. */
export const revokeToken = defineOperation({
  name: "revokeToken",
  who: SUPERVISORS,
  input: revokeTokenInput,
  async run(tx, input, { actor }) {
    const revoked = await revokeLiveToken(tx, input.name);
    if (!revoked) return fail({ code: "not_found", message: `No live token is named ${input.name}` });
    await recordAudit(tx, actor, { action: "token_revoked", subject: { kind: "token", id: revoked.id, name: input.name }, detail: { role: revoked.role } });
    return ok({ revoked: input.name });
  },
});

export const setMonthlyBudgetInput = z.strictObject({ name: tokenName, monthlyBudget: budget.nullable() });

/** Sets (or, with null, lifts) a live token's monthly cap; audited. Takes effect at the agent's next claim. */
export const setMonthlyBudget = defineOperation({
  name: "setMonthlyBudget",
  who: SUPERVISORS,
  input: setMonthlyBudgetInput,
  async run(tx, input, { actor }) {
    const changed = await setMonthlyBudgetRow(tx, input.name, input.monthlyBudget);
    if (!changed) return fail({ code: "not_found", message: `No live token is named ${input.name}` });
    await recordAudit(tx, actor, {
      action: "token_budget_set",
      subject: { kind: "token", id: changed.id, name: input.name },
      detail: { monthlyBudget: input.monthlyBudget },
    });
    return ok({ name: input.name, monthlyBudget: input.monthlyBudget });
  },
});
