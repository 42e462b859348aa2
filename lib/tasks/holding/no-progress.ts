import { sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { ownerTransition } from "../core/transition";
import type { OperationContext } from "../core/engine";
import { fail, type Result, type Task } from "../core/types";
import { failTask } from "./fail";

// Leases that may demand progress (queue setting maxRenewalsWithoutProgress, docs/leases.md).
// A renewal counts as without progress when its `progress` equals the last one (or is absent)
// and no checkpoint, effect or question came since. task_state.renewals_without_progress
// counts them in a row; a changed progress, an effect intent and a question reset it. At the
// limit the log decides: a checkpoint (or any other resetting fact) since the count began makes
// the count shorter; otherwise the renewal is refused (409 no_progress) and the attempt fails
// with that reason, a strike like any failure. With the limit 0 (the default) the renewal
// writes the counter's 0 and its guard is one comparison: nothing read, nothing more written.

/** `q.max_renewals_without_progress = 0`, or the renewal brings a progress other than the attempt's last (t = the task before). */
const offOrChanged = (progress: unknown) => (progress === undefined
  ? sql`q.max_renewals_without_progress = 0`
  : sql`q.max_renewals_without_progress = 0 OR ${JSON.stringify(progress)}::jsonb IS DISTINCT FROM t.progress`);

/** SET item of a renewal: the count of renewals in a row without progress. */
export const countRenewal = (progress: unknown) =>
  sql`renewals_without_progress = CASE WHEN ${offOrChanged(progress)} THEN 0 ELSE t.renewals_without_progress + 1 END`;

/** Guard of a renewal (t, q as in every transition): it is not one too many without progress. */
export const withinProgressLimit = (progress: unknown) =>
  sql`(${offOrChanged(progress)} OR t.renewals_without_progress < q.max_renewals_without_progress)`;

/** SET item of a move that is progress itself (an effect intent, a question): the count starts again. */
export const progressMade = sql`renewals_without_progress = 0`;

/** Facts of an attempt that are progress whatever `progress` says (checkpointed by type name: its writer is elsewhere). */
const PROGRESS_FACTS = ["checkpointed", "side_effect", "effect_intended", "question_asked", "question_answered", "budget_raised"];
const factIn = (types: string[], alias: string) => sql`${sql.raw(alias)}.type::text IN (${sql.join(types.map((f) => sql`${f}`), sql`, `)})`;

/** The id of the task's (t) latest event of progress in this attempt, or of its claim; 0 without one. */
const lastProgressFact = sql`coalesce((SELECT max(p.id) FROM task_events p WHERE p.task_id = t.id AND ${factIn(["claimed", ...PROGRESS_FACTS], "p")}), 0)`;

/** The renewals (not a person's presence) of the task `t` since its last fact of progress or its claim. */
export const renewalsSinceProgress = sql`(SELECT count(*)::int FROM task_events h
  WHERE h.task_id = t.id AND h.type = 'heartbeat' AND NOT (h.payload ? 'presence') AND h.id > ${lastProgressFact})`;

/** When the attempt of `t` last made a fact of progress (not counting `progress`, which progress_at says); null without one. */
export const lastProgressFactAt = sql`(SELECT max(p.created_at) FROM task_events p WHERE p.task_id = t.id AND ${factIn(PROGRESS_FACTS, "p")}
  AND p.id > coalesce((SELECT max(c.id) FROM task_events c WHERE c.task_id = t.id AND c.type = 'claimed'), 0))`;

const renewing = ownerTransition("renew");

/**
 * After a renewal changed nothing: was the progress limit what stopped it? Then count again
 * from the log since the last fact of progress; a shorter count is written back ("recounted":
 * renew again), a count at the limit fails the attempt and answers no_progress. Null when
 * something else stopped the renewal.
 */
export async function refuseWithoutProgress(
  tx: Tx,
  input: { taskId: string; version: number; progress?: unknown },
  ctx: OperationContext,
): Promise<Result<Task> | "recounted" | null> {
  const now = ctx.clock.now();
  const [row] = await tx.execute<{ counted: number; max: number; queue: string; since: number }>(sql`
    SELECT t.renewals_without_progress AS counted, q.max_renewals_without_progress AS max, t.queue, ${renewalsSinceProgress} AS since
    FROM task_state t JOIN queues q ON q.name = t.queue
    WHERE t.id = ${input.taskId}::bigint AND ${renewing.guard(ctx.actor, input.version, now, sql`NOT ${withinProgressLimit(input.progress)}`)}
    FOR UPDATE OF t`);
  if (!row) return null;
  const count = Math.min(Number(row.counted), Number(row.since));
  if (count < Number(row.max)) {
    await tx.execute(sql`UPDATE task_state SET renewals_without_progress = ${count} WHERE id = ${input.taskId}::bigint`);
    return "recounted";
  }
  const failed = await failTask.run(tx, { taskId: input.taskId, version: input.version, reason: "no_progress" }, ctx);
  if (!failed.ok) return failed;
  const task = failed.value;
  return fail({
    code: "no_progress",
    message: `Task ${task.id}: ${count} renewals in a row brought no progress and queue ${row.queue} allows ${row.max}, ` +
      `so the lease was not extended and the attempt failed (reason no_progress; ${task.status === "escalated" ? "its last strike: escalated" : "back to the queue"}). ` +
      "Report a changed progress, a checkpoint, an effect or a question as the work moves",
    task,
  });
}

