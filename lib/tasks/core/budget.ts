import { z } from "zod";

// Budgets' inputs (docs/contract.md#budgets, docs/budgets.md), in core because a budget is a
// field of the task its schemas take (lib/tasks/budgets/ holds the acts over it). Amounts are
// plain numbers in a unit the team chooses ("usd_cents", "tokens"); the database keeps them as
// numeric, exact.

/** The largest amount accepted: far above any real budget, far below where a double loses cents. */
export const AMOUNT_MAX = 1e12;
export const UNIT_MAX = 20;

const amount = z.number("must be a number").finite("must be a finite number").max(AMOUNT_MAX, `must be at most ${AMOUNT_MAX}`);

/** A limit and its unit: the task's budget, or an agent's monthly cap. */
export const budget = z.strictObject({
  limit: amount.gt(0, "must be greater than 0"),
  unit: z
    .string("must be a unit such as usd_cents or tokens")
    .min(1, "must not be empty")
    .max(UNIT_MAX, `must be at most ${UNIT_MAX} characters`)
    .regex(/^[A-Za-z0-9._-]+$/, "must be letters, digits, '.', '_' or '-' (e.g. usd_cents, tokens)"),
});
export type Budget = z.infer<typeof budget>;

/** What a heartbeat or a completion reports spending since the last report: added to `spent`. */
export const spend = amount.min(0, "must be 0 or more");

/** POST /tasks/{id}/budget: a supervisor raises the limit by `add`. */
export const raiseBudgetBody = z.strictObject({
  version: z.number().int("must be a whole number").min(1).max(2_147_483_647),
  add: amount.gt(0, "must be greater than 0"),
});
