import { sql } from "drizzle-orm";
import { explainMiss, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { raiseBudgetInput } from "../core/schemas";
import { loadTask, toTasks } from "../core/task-row";
import { supervisorGuard, transition } from "../core/transition";
import { fail, ok, type Result, type Task } from "../core/types";
import { expireQuestions } from "../questions/expire";

// POST /tasks/{id}/budget (docs/contract.md#budgets, docs/budgets.md): a supervisor raises the limit of a
// task parked on its budget; the owner gets a fresh lease of its claim's length, the attempt —
// and so its fence — unchanged, and the budget question is answered by the raise. The machine's
// raiseBudget row.

const move = supervisorGuard("raiseBudget");

/** The open budget question of the task's current attempt (the park's). */
const openBudgetQuestion = (now: ReturnType<typeof sql>) => sql`EXISTS (
  SELECT 1 FROM task_questions x WHERE x.task_id = t.id AND x.attempt = t.attempt AND x.kind = 'budget'
    AND x.answered_at IS NULL AND x.expired_at IS NULL AND x.deadline > ${now})`;

export const raiseBudget = defineOperation({
  name: "raiseBudget",
  makes: ["raiseBudget"],
  input: raiseBudgetInput,
  async run(tx, input, { actor, clock }): Promise<Result<Task>> {
    const before = await loadTask(tx, input.taskId);
    if (!before) return notFound(input.taskId);
    // A raise that leaves the limit at or under what was spent would park it again at once.
    if (before.budget && before.status === "awaiting_input" && before.budget.limit + input.add <= before.spent) {
      const short = before.spent - before.budget.limit;
      return fail({
        code: "invalid_request", field: "add", task: before,
        message: `add must lift the limit above what was spent (${before.spent} of ${before.budget.limit} ${before.budget.unit}): more than ${short}`,
      });
    }
    await expireQuestions(tx, clock, { taskId: input.taskId }); // a deadline already past wins over the raise
    const now = clock.now();
    const changed = await transition(
      tx, input.taskId,
      sql`budget_limit = t.budget_limit + ${input.add}::numeric, status = 'started',
          lease_seconds = coalesce(t.lease_seconds, q.lease_seconds),
          lease_until = ${now} + make_interval(secs => coalesce(t.lease_seconds, q.lease_seconds)),
          version = t.version + 1, updated_at = ${now}`,
      sql`${move.guard(input.version)} AND t.budget_limit IS NOT NULL AND ${openBudgetQuestion(now)}`,
    );
    if (!changed) {
      const missed = await explainMiss(tx, clock, move.expected(input, actor));
      // Status and version matched: the task waits on a person's question, not on its budget.
      if (!missed.ok && missed.error.code === "version_conflict" && missed.error.task?.version === input.version) {
        return fail({ code: "invalid_transition", task: missed.error.task, message: `Task ${input.taskId} waits on a question to a person, not on its budget: there is nothing to raise` });
      }
      return missed;
    }
    const { row } = changed;
    const limit = Number(row.budgetLimit);
    const [question] = await tx.execute<{ id: string }>(sql`
      UPDATE task_questions SET answer_text = ${`Raised the budget by ${input.add} to ${limit} ${row.budgetUnit}`},
                                answered_by_id = ${actor.id}::uuid, answered_at = ${now}
      WHERE task_id = ${input.taskId}::bigint AND attempt = ${row.attempt} AND kind = 'budget' AND answered_at IS NULL AND expired_at IS NULL
      RETURNING id::text`);
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "budget_raised", actorId: actor.id,
      payload: {
        version: row.version, status: row.status, spent: Number(row.spent), budget: { limit, unit: row.budgetUnit! }, add: input.add,
        leaseUntil: row.leaseUntil?.toISOString(), leaseSeconds: row.leaseSeconds ?? undefined, ...(question ? { questionId: question.id } : {}),
      },
    }]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
