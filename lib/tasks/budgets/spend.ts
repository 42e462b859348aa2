import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { TaskRow } from "@/db/schema";
import type { Clock } from "../core/clock";
import type { NewEvent } from "../core/events";
import { SYSTEM_ACTOR_ID } from "../core/events";
import { formatAmount } from "./amount";
import { addActorSpend } from "./cap";

// Spend reported while the work runs (docs/contract.md#budgets, docs/budgets.md): a heartbeat's or a
// completion's `spend` is added to the task's `spent` in the move's own UPDATE. At 80 % of the
// limit one budget_warning; a heartbeat that reaches the limit parks the task (awaiting_input,
// owner and attempt kept) on a system question of kind budget, in the same UPDATE — the
// renew row of the machine's `or` — so no heartbeat can run past the limit.

/** The share of the limit that warns. */
export const WARN_AT = 0.8;

/** The heartbeat's condition for parking: `spend` brings `spent` to the limit. */
export const reachesBudget = (spend: number) => sql`(t.budget_limit IS NOT NULL AND t.spent + ${spend}::numeric >= t.budget_limit)`;

/**
 * The renew's SET list with a report of spend: spent added, and where it reaches the budget
 * the lease parked (the version a transition's) instead of renewed.
 */
export function renewWithSpend(spend: number, now: SQL, progress: SQL): SQL {
  const reached = reachesBudget(spend);
  return sql`spent = t.spent + ${spend}::numeric,
    status = CASE WHEN ${reached} THEN 'awaiting_input'::task_status ELSE t.status END,
    lease_until = CASE WHEN ${reached} THEN NULL ELSE ${now} + make_interval(secs => t.lease_seconds) END,
    version = CASE WHEN ${reached} THEN t.version + 1 ELSE t.version END,
    updated_at = ${now} ${progress}`;
}

const budgetOf = (row: TaskRow) => ({ limit: Number(row.budgetLimit), unit: row.budgetUnit! });

/** A budget_warning where this report carried `spent` across 80 % of the limit (once a limit). */
export function warningOf(row: TaskRow, spend: number, actorId: string): NewEvent[] {
  if (row.budgetLimit === null || spend <= 0) return [];
  const limit = Number(row.budgetLimit);
  const after = Number(row.spent);
  const before = after - spend;
  if (!(before < WARN_AT * limit && after >= WARN_AT * limit)) return [];
  return [{
    taskId: row.id, queue: row.queue, type: "budget_warning", actorId,
    payload: { version: row.version, status: row.status, spent: after, budget: budgetOf(row) },
  }];
}

const amount = (n: number, unit: string) => `${formatAmount(n)} ${unit}`;

/** The budget question's words: what was spent of what, and what a supervisor may do. */
export const budgetQuestion = (row: TaskRow) =>
  `Budget reached: ${amount(Number(row.spent), row.budgetUnit!)} spent of ${amount(Number(row.budgetLimit), row.budgetUnit!)}. ` +
  "Raise the limit to let the work go on; unanswered, the task goes to the inbox at the deadline.";

/**
 * The park's own writes, after the UPDATE parked the task: the system's question for
 * supervisors (deadline: the queue's question timeout) and the budget_reached event.
 */
export async function parkOnBudget(tx: Executor, clock: Clock, row: TaskRow): Promise<NewEvent[]> {
  const now = clock.now();
  const [inserted] = await tx.execute<{ id: string }>(sql`
    INSERT INTO task_questions (task_id, kind, question, choices, attempt, asked_by_id, asked_at, deadline)
    SELECT ${row.id.toString()}::bigint, 'budget', ${budgetQuestion(row)}, '[]'::jsonb, ${row.attempt}, ${SYSTEM_ACTOR_ID}::uuid, ${now},
           ${now} + make_interval(secs => q.question_timeout_seconds)
    FROM queues q WHERE q.name = ${row.queue}
    RETURNING id::text`);
  return [{
    taskId: row.id, queue: row.queue, type: "budget_reached", actorId: SYSTEM_ACTOR_ID,
    payload: { version: row.version, status: row.status, spent: Number(row.spent), budget: budgetOf(row), questionId: inserted!.id },
  }];
}

/** The actor's month gets the report too, in the task's unit (its cap is checked at claim time). */
export const recordSpend = (tx: Executor, clock: Clock, actorId: string, row: TaskRow, spend: number) =>
  addActorSpend(tx, clock, actorId, row.budgetUnit, spend);
