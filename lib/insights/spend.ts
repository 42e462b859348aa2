import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { Span } from "./window";

// Spend per done task (issue 24, docs/budgets.md): what the queue's tasks finished in the window
// cost, by unit. Read from the task rows (spent is kept there), through tasks_spent_done, which
// holds only done tasks that reported spend, so a queue of a million unmetered tasks reads nothing.
// It keys on done_at (updated_at while done, null otherwise; migration 0031), not updated_at,
// which every heartbeat changes, and done_at stands for status in its predicate too: a
// heartbeat then changes no indexed value, and its update can be HOT.

export interface QueueSpend {
  /** The tasks' budget unit, or '' for spend reported on tasks without a budget. */
  unit: string;
  doneTasks: number;
  spent: number;
  perDone: number;
}

export async function readQueueSpend(db: Executor, queue: string, span: Span): Promise<QueueSpend[]> {
  const rows = await db.execute<{ unit: string; done: number; spent: string }>(sql`
    SELECT coalesce(budget_unit, '') AS unit, count(*)::int AS done, sum(spent)::text AS spent FROM task_state
    WHERE queue = ${queue} AND done_at IS NOT NULL AND spent > 0
      AND done_at >= ${span.from.toISOString()}::timestamptz AND done_at < ${span.to.toISOString()}::timestamptz
    GROUP BY 1 ORDER BY 1`);
  return rows.map((r) => ({ unit: r.unit, doneTasks: r.done, spent: Number(r.spent), perDone: Number(r.spent) / r.done }));
}
