import { sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { claimBest } from "../claiming/claim-next";
import type { Clock } from "../core/clock";
import { explainMiss, HELD } from "../core/conflicts";
import { defineOperation, Rollback } from "../core/engine";
import { appendEvents, oneEventWrite, type NewEvent } from "../core/events";
import { instanceOf } from "../core/attempt";
import { dependentsUnblocked } from "../authoring/graph";
import { executePrepared, sendAhead } from "@/db/hot-path";
import { completeInput, completeNextInput } from "../core/schemas";
import { CONTENT_COLUMNS, contentOf, loadTask, rawToTaskRow, toTasks } from "../core/task-row";
import { ownerTransition, recheck } from "../core/transition";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import { effectsAppliedByCompletion } from "../effects/ledger";
import { effectsUnresolved } from "../effects/unresolved";
import type { SubmissionPayload } from "../core/event-payloads";
import { actorOf, needsReview, submissionDigest } from "../review/submission";
import { emptyResultSql, resultRequired } from "../review/result-required";
import { noUnread, refuseUnread, withUnread } from "./unread";
import { MOVES } from "../core/machine";
import { recordSpend, warningOf } from "../budgets/spend";
import type { TaskRow } from "@/db/schema";

const move = ownerTransition("complete");

export interface Completion {
  taskId: string;
  version: number;
  result?: unknown;
  /** What the attempt spent since its last heartbeat (docs/budgets.md). */
  spend?: number;
}

/** An item's answer; `replayed` when it had already been completed by this caller (a retry). */
export type Completed = Result<Task> & { replayed?: boolean };

/**
 * The completion of started tasks by their owner, who stays on the done task as the one who
 * completed it — or, where the queue's `review` asks for it, on the in_review task as its
 * submitter (the result and its digest kept as the task's submission; dependents stay blocked). One guarded UPDATE for every item (a single completion is a batch of one): the rows are
 * locked in id order first, so two batches that share tasks cannot deadlock, and each
 * row's own guard decides for that row alone. Items whose row did not change are explained
 * one by one, as any owner call is. Results come back in the order of `items`.
 */
const ISO_MS = sql.raw(`'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`);

export async function completeTasks(tx: Tx, clock: Clock, actor: ActorRef, items: Completion[], instance?: string): Promise<Completed[]> {
  const now = clock.now();
  // One item (the common case) as plain parameters, so its statement reads like every other
  // transition's; a batch as one JSON parameter, so every batch size shares one statement.
  // Each item's result and its digest travel with it: a queue whose review asks for it keeps
  // them as the task's submission (docs/engine.md, review before done).
  const item = items.length === 1
    ? sql`SELECT ${items[0]!.taskId}::bigint AS id, ${items[0]!.version}::int AS version,
                 ${JSON.stringify(items[0]!.result ?? null)}::jsonb AS result, ${submissionDigest(items[0]!.result)}::text AS digest`
    : sql`SELECT id, version, result, digest FROM jsonb_to_recordset(${JSON.stringify(items.map((i) => ({
          id: i.taskId, version: i.version, result: i.result ?? null, digest: submissionDigest(i.result),
        })))}::jsonb)
          AS i(id bigint, version int, result jsonb, digest text)`;
  const review = needsReview(actor);
  // Spend only where some item reports it, so the loop's plain completion keeps its statement.
  const spending = items.some((i) => i.spend !== undefined);
  const spendItem = items.length === 1 ? sql`${items[0]!.spend ?? 0}::numeric` : sql`(${JSON.stringify(Object.fromEntries(items.map((i) => [i.taskId, i.spend ?? 0])))}::jsonb ->> item.id::text)::numeric`;
  const spent = spending ? sql`spent = t.spent + ${spendItem},` : sql``;
  // The completion writes its tasks' held-set rows in its own statement (its UPDATE bumps
  // sets_mark, so the set triggers leave them; claim-rows.ts, claimedSets, says why): a task
  // done or in review leaves the held set, and enters no other.
  const updating = executePrepared<Record<string, unknown>>(tx, sql`
    WITH item AS (${item}), locked AS MATERIALIZED (
      SELECT t.id, t.side_effect_recorded FROM task_state t JOIN item ON item.id = t.id
      ORDER BY t.id
      FOR UPDATE OF t
    ), written AS (
    UPDATE task_state t SET status = CASE WHEN ${review} THEN 'in_review' ELSE 'done' END::task_status,
                       submission = CASE WHEN ${review} THEN jsonb_build_object(
                         'result', item.result, 'digest', item.digest, 'by', ${JSON.stringify(actorOf(actor))}::jsonb,
                         'attempt', t.attempt, 'at', to_char(${now}::timestamptz AT TIME ZONE 'UTC', ${ISO_MS})
                       ) ELSE t.submission END, ${spent}
                       lease_until = NULL, lease_seconds = NULL, side_effect_recorded = false,
                       intended_effects = 0, version = t.version + 1, updated_at = ${now}, sets_mark = t.sets_mark + 1
    FROM locked l, item, queues q
    WHERE t.id = l.id AND item.id = t.id AND q.name = t.queue
      AND ${recheck(move.guard(actor, sql`item.version`, now, sql`t.unknown_effects = 0 AND ${noUnread} AND NOT (${review} AND ${emptyResultSql(sql`item.result`)})`))}
    RETURNING t.*, l.side_effect_recorded AS had_effects
    ), left_held AS (DELETE FROM task_held h USING written WHERE h.id = written.id),
    left_leased AS (DELETE FROM task_lease l USING written WHERE l.id = written.id)
    SELECT written.*, ${CONTENT_COLUMNS} FROM written ${contentOf("written")}`);
  // Sent behind the UPDATE in the same round trip, it unblocks only what the UPDATE made done
  // (claimable when this commits).
  const unblocking = sendAhead(dependentsUnblocked(tx, clock, actor, items.map((i) => BigInt(i.taskId))));
  const raws = await updating;
  const done = new Map(raws.map((raw) => rawToTaskRow(raw)).map((row) => [row.id.toString(), row]));
  // The effect ledger: the completing attempt's own open intents are applied (only where it recorded any).
  const withEffects = raws.filter((raw) => raw.had_effects === true).map((raw) => done.get(String(raw.id))!);
  const applied = withEffects.length > 0 ? await effectsAppliedByCompletion(tx, clock, actor, withEffects) : [];
  const doneTasks = new Map((await toTasks(tx, [...done.values()], actor)).map((task) => [task.id, task]));
  const spends = spending ? items.filter((i) => (i.spend ?? 0) > 0 && done.has(i.taskId)) : [];
  for (const i of spends) await recordSpend(tx, clock, actor.id, done.get(i.taskId)!, i.spend!);
  const spentOf = (item: Completion, row: TaskRow) => (item.spend !== undefined ? { spend: item.spend, spent: Number(row.spent) } : {});

  await appendEvents(tx, clock, [...applied, ...items.flatMap((item): NewEvent[] => {
    const row = done.get(item.taskId);
    if (!row) return [];
    if (row.status === "in_review") {
      return [{
        taskId: row.id, queue: row.queue, type: "submitted" as const, actorId: actor.id,
        payload: { version: row.version, status: row.status, submission: row.submission as SubmissionPayload, ...spentOf(item, row), ...instanceOf(instance) },
      }, ...warningOf(row, item.spend ?? 0, actor.id)];
    }
    return [{
      taskId: row.id, queue: row.queue, type: "completed" as const, actorId: actor.id,
      payload: { version: row.version, status: row.status, ...(item.result !== undefined ? { result: item.result } : {}), ...spentOf(item, row), ...instanceOf(instance) },
    }, ...warningOf(row, item.spend ?? 0, actor.id)];
  })]);
  await appendEvents(tx, clock, await unblocking);

  const results: Completed[] = [];
  for (const item of items) {
    const task = doneTasks.get(item.taskId);
    if (task) {
      results.push(ok(task));
      continue;
    }
    const unresolved = (await refuseUnread(tx, item, actor, "complete it", MOVES.complete.from)) ?? (await effectsUnresolved(tx, item, actor)) ?? (await resultRequired(tx, item, actor));
    if (unresolved) {
      results.push(unresolved);
      continue;
    }
    const missed = await explainMiss(tx, clock, move.expected(item, actor));
    results.push(missed.ok ? { ...missed, replayed: true } : missed);
  }
  return results;
}

/**
 * Owner only, from started. Allowed after the lease lapsed as long as nobody reclaimed the
 * task: state, owner and version still match, so the work is still this owner's.
 */
export const complete = defineOperation({
  name: "complete",
  makes: ["complete"],
  input: completeInput,
  async run(tx, item, { actor, clock, instance }) {
    // The completion's event and its dependents' `unblocked` events: one write, one NOTIFY.
    const [completed] = await oneEventWrite(tx, clock, () => completeTasks(tx, clock, actor, [item], instance));
    const { replayed: _, ...answer } = completed!;
    return answer;
  },
});

/**
 * Completes the task and, with `next`, claims (and starts) the next task of `next.queue` in
 * the same transaction: one commit and one NOTIFY for the agent loop's two steps, each still
 * its own guarded write with its own events. A refused completion claims nothing; a refused
 * claim undoes the completion too, so the caller can retry either way from where it was.
 */
export const completeAndClaimNext = defineOperation({
  name: "completeAndClaimNext",
  makes: ["complete", "claim"],
  input: completeNextInput,
  async run(tx, { next, ...item }, { actor, clock, instance }): Promise<Result<{ task: Task; next?: Task | null }>> {
    return oneEventWrite(tx, clock, async () => {
      const completing = completeTasks(tx, clock, actor, [item], instance);
      // The claim travels behind the completion, in its round trip: its statement claims only
      // if this transaction wrote the completed task, and it appends its events after the
      // completion's (claimBest's `after`), so a refused or replayed completion claims nothing.
      const tookEffect = completing.then(([c]) => c!.ok && !c!.replayed, () => false);
      const claiming = next ? sendAhead(claimBest(tx, clock, actor, next, 1, instance, { taskId: item.taskId, completed: tookEffect })) : undefined;
      const [completed] = await completing;
      if (!completed!.ok) return (await claiming, completed!);
      if (!next) return ok({ task: completed!.value });
      // A retry whose first answer was lost gets the same next task, not a second one.
      if (completed!.replayed) return (await claiming, ok({ task: completed!.value, next: await claimedWith(tx, item.taskId, actor) }));
      const claimed = await claiming!;
      // A field the claim names is next's ("next.queue"): the caller's own task was fine.
      if (!claimed.ok) throw new Rollback(claimed.error.field ? fail({ ...claimed.error, field: `next.${claimed.error.field}` }) : claimed);
      return ok({ task: completed!.value, next: claimed.value[0] ?? null });
    });
  },
});

/** The task this caller claimed in the transaction that completed `taskId`, if it still holds it. */
async function claimedWith(tx: Tx, taskId: string, actor: ActorRef): Promise<Task | null> {
  const [found] = await executePrepared<{ task_id: string }>(tx, sql`
    SELECT claim.task_id::text FROM task_events done
    JOIN task_events claim ON claim.tx_id = done.tx_id AND claim.type = 'claimed' AND claim.actor_id = done.actor_id
    WHERE done.task_id = ${taskId}::bigint AND done.type IN ('completed', 'submitted') AND done.actor_id = ${actor.id}::uuid
    ORDER BY done.id DESC, claim.id
    LIMIT 1`);
  const task = found ? await loadTask(tx, found.task_id) : null;
  return task && task.owner?.id === actor.id && HELD.includes(task.status) ? withUnread(tx, task, actor) : null;
}
