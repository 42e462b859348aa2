import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { Clock } from "../core/clock";
import type { EngineError } from "../core/types";

// Agents' monthly caps (docs/contract.md#budgets, docs/budgets.md): an agent token may carry a limit a
// calendar month (UTC) in a unit; what the agent spent that month (actor_spend, in that unit
// or on tasks without a budget) at or over it, claim-next hands it nothing and readiness says
// agent_budget. Checked in the claim's own statements, never by a read of its own.

/** The calendar month (UTC) of `now`, as the date actor_spend keys its rows by. */
export const monthOf = (now: SQL) => sql`date_trunc('month', ${now} AT TIME ZONE 'UTC')::date`;

/** What the capped token `cap` (an agent_tokens row) spent this month: its cap's unit, and spend on tasks without a budget. */
const spentAgainstCap = (now: SQL) => sql`(SELECT coalesce(sum(s.spent), 0) FROM actor_spend s
  WHERE s.actor_id = cap.actor_id AND s.month = ${monthOf(now)} AND s.unit IN (cap.monthly_budget_unit, ''))`;

/** True when `actorId` is an agent whose monthly cap this month's spend has reached. */
export const overMonthlyCap = (actorId: string, now: SQL) => sql<boolean>`EXISTS (
  SELECT 1 FROM agent_tokens cap
  WHERE cap.actor_id = ${actorId}::uuid AND cap.monthly_budget_limit IS NOT NULL
    AND ${spentAgainstCap(now)} >= cap.monthly_budget_limit)`;

export interface MonthlyCap {
  limit: number;
  unit: string;
  spent: number;
}

/** The agent's cap and what it spent this month in its unit; null for an actor without a cap. */
export async function readMonthlyCap(db: Executor, clock: Clock, actorId: string): Promise<MonthlyCap | null> {
  const [row] = await db.execute<{ limit: string; unit: string; spent: string }>(sql`
    SELECT cap.monthly_budget_limit AS limit, cap.monthly_budget_unit AS unit, ${spentAgainstCap(clock.now())} AS spent
    FROM agent_tokens cap
    WHERE cap.actor_id = ${actorId}::uuid AND cap.monthly_budget_limit IS NOT NULL
    LIMIT 1`);
  return row ? { limit: Number(row.limit), unit: row.unit, spent: Number(row.spent) } : null;
}

/**
 * A capped agent budgets its own tasks in its cap's unit (or not at all): spend in any other
 * unit never counts against the cap, so a task it made in "usd-cents" or "tokens" was a way
 * past a cap in "usd_cents" (found in a security review, 6 Dec 2026). Tasks a person or a
 * supervisor budgets otherwise are their decision. The 400 naming `budget.unit`, or null.
 */
export async function capUnitRefusal(db: Executor, clock: Clock, actorId: string, unit: string | null | undefined): Promise<EngineError | null> {
  if (!unit) return null;
  const cap = await readMonthlyCap(db, clock, actorId);
  if (!cap || cap.unit === unit) return null;
  return {
    code: "invalid_request", field: "budget.unit",
    message: `budget.unit must be ${cap.unit}, your monthly cap's unit (or give no budget): spend in ${unit} would not count against your cap`,
  };
}

/** Adds a report of spend to the actor's month (in the task's unit, '' without a budget). */
export async function addActorSpend(tx: Executor, clock: Clock, actorId: string, unit: string | null, amount: number): Promise<void> {
  if (amount <= 0) return;
  await tx.execute(sql`
    INSERT INTO actor_spend (actor_id, month, unit, spent)
    VALUES (${actorId}::uuid, ${monthOf(clock.now())}, ${unit ?? ""}, ${amount})
    ON CONFLICT (actor_id, month, unit) DO UPDATE SET spent = actor_spend.spent + excluded.spent`);
}
