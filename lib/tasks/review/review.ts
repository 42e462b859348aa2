import { sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { handoffNote, setHandoff } from "../core/attempt";
import type { Clock } from "../core/clock";
import { explainMiss, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents, oneEventWrite, type NewEvent } from "../core/events";
import { MOVES } from "../core/machine";
import { executePrepared } from "@/db/hot-path";
import { reviewInput, type ReviewInput } from "../core/schemas";
import { countStrike, strikeStatus } from "../core/strike";
import { loadTask, toTasks } from "../core/task-row";
import { endAttempt, statusIn, transition } from "../core/transition";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import { doneBy } from "../core/machine";
import { dependentsUnblocked } from "../authoring/graph";
import { heldBy, partyOf, submittedBy } from "./party";

const PARTY = sql.raw("party.ids");

// Review before done (maker–checker, docs/engine.md). The reviewer rule is decided here and
// only here: every surface (HTTP, MCP, the task page, the CLI, the inbox) performs this
// operation, so none can skip it or say it differently.

/** What decides a review, read under the task's row lock. */
interface UnderReview {
  status: string;
  version: number;
  digest: string | null;
  submitter: string | null;
  /** The submitter is the caller's party but not the caller: their OAuth agent, or the person it acts for (party.ts). */
  submittedByParty: boolean;
  /** The caller, or their party, held an attempt of the task (a `claimed` event in its history). */
  held: boolean;
  /** …and the caller itself did. */
  heldThemselves: boolean;
}

async function readUnderReview(tx: Tx, taskId: string, actor: ActorRef): Promise<UnderReview | null> {
  const [row] = await executePrepared<Record<string, unknown>>(tx, sql`
    WITH party AS (SELECT ${partyOf(actor.id)} AS ids)
    SELECT t.status::text AS status, t.version, t.submission->>'digest' AS digest, t.submission->'by'->>'id' AS submitter,
           ${submittedBy("t", PARTY)} AS submitted_by_party,
           ${heldBy(sql`t.id`, PARTY)} AS held,
           ${heldBy(sql`t.id`, sql`ARRAY[${actor.id}::uuid]`)} AS held_themselves
    FROM task_state t, party WHERE t.id = ${taskId}::bigint
    FOR UPDATE OF t`);
  if (!row) return null;
  return {
    status: row.status as string,
    version: Number(row.version),
    digest: (row.digest as string | null) ?? null,
    submitter: (row.submitter as string | null) ?? null,
    submittedByParty: Boolean(row.submitted_by_party),
    held: Boolean(row.held),
    heldThemselves: Boolean(row.held_themselves),
  };
}

/**
 * Whether `actor` may review the task as it stands: not its submitter, nor anyone who held an
 * attempt of it — counting a person and their OAuth agents as one (party.ts). The refusal
 * every surface returns (403 self_review).
 */
export function selfReview(task: Pick<UnderReview, "submitter" | "submittedByParty" | "held" | "heldThemselves">, actor: ActorRef, taskId: string) {
  if (task.submitter === actor.id) {
    return fail({ code: "self_review", message: `You submitted task ${taskId}: someone else must review it (maker–checker)` });
  }
  if (task.heldThemselves) {
    return fail({ code: "self_review", message: `You held an attempt of task ${taskId}: someone who did not work on it must review it (maker–checker)` });
  }
  if (task.submittedByParty || task.held) {
    const what = task.submittedByParty ? "submitted" : "held an attempt of";
    return fail({ code: "self_review", message: `An OAuth connection of yours, or the person it acts for, ${what} task ${taskId}: someone else must review it (maker–checker)` });
  }
  return null;
}

const expectation = (input: ReviewInput, actor: ActorRef, move: "approve" | "reject") => ({
  taskId: input.taskId, version: input.version, actor, verb: MOVES[move].verb, from: MOVES[move].from, doneBy: doneBy(MOVES[move]), ownerOnly: false,
});

/**
 * A reviewer's decision on an in_review task: approve → done (its dependents unblock in the
 * same transaction); reject → a strike (the failure rule of lib/tasks/core/strike.ts: back to
 * the queue, or the inbox on the last strike) with the note as the next claimant's hand-off.
 * The order of the refusals: the reviewer rule first (403 self_review, whatever the version),
 * then the digest (409 submission_changed), then the guarded write (version, status).
 */
export const review = defineOperation({
  name: "review",
  makes: ["approve", "reject"],
  input: reviewInput,
  async run(tx, input, { actor, clock }): Promise<Result<Task>> {
    const move = input.decision === "approve" ? "approve" : "reject";
    const found = await readUnderReview(tx, input.taskId, actor);
    if (!found) return notFound(input.taskId);
    if (found.status === "in_review") {
      const refused = selfReview(found, actor, input.taskId);
      if (refused) return refused;
      if (found.digest !== input.digest.toLowerCase() && found.version === input.version) {
        return fail({
          code: "submission_changed",
          message: `The digest is not task ${input.taskId}'s submission (${found.digest}): read the submission again before you decide`,
          task: (await loadTask(tx, input.taskId)) ?? undefined,
        });
      }
    }
    return oneEventWrite(tx, clock, () => (move === "approve" ? approve(tx, clock, actor, input) : reject(tx, clock, actor, input)));
  },
});

const guard = (input: ReviewInput, move: "approve" | "reject") =>
  sql`${statusIn(MOVES[move].from)} AND t.version = ${input.version} AND t.submission->>'digest' = ${input.digest.toLowerCase()}`;

async function approve(tx: Tx, clock: Clock, actor: ActorRef, input: ReviewInput): Promise<Result<Task>> {
  const changed = await transition(tx, input.taskId, sql`status = 'done', version = t.version + 1, updated_at = ${clock.now()}`, guard(input, "approve"));
  if (!changed) return explainMiss(tx, clock, expectation(input, actor, "approve"));
  const { row } = changed;
  const unblocked = await dependentsUnblocked(tx, clock, actor, [row.id]);
  await appendEvents(tx, clock, [
    {
      taskId: row.id, queue: row.queue, type: "approved", actorId: actor.id,
      payload: { version: row.version, status: row.status, digest: input.digest.toLowerCase(), ...(input.note ? { note: input.note } : {}) },
    },
    ...unblocked,
  ]);
  return ok((await toTasks(tx, [row], actor))[0]!);
}

async function reject(tx: Tx, clock: Clock, actor: ActorRef, input: ReviewInput): Promise<Result<Task>> {
  const now = clock.now();
  const note = input.note ? handoffNote({ summary: input.note }, actor) : null;
  const changed = await transition(
    tx,
    input.taskId,
    sql`${endAttempt(strikeStatus, now)}, ${countStrike(now)}, submission = NULL ${setHandoff(note, now)}`,
    guard(input, "reject"),
  );
  if (!changed) return explainMiss(tx, clock, expectation(input, actor, "reject"));
  const { row } = changed;
  const payload = {
    version: row.version, status: row.status, digest: input.digest.toLowerCase(), failureCount: row.failureCount,
    notBefore: row.notBefore?.toISOString() ?? null, ...(input.note ? { note: input.note } : {}),
  };
  const events: NewEvent[] = [{ taskId: row.id, queue: row.queue, type: "rejected", actorId: actor.id, payload: { ...payload, ...(note ? { handoff: note } : {}) } }];
  if (row.status === "escalated") {
    events.push({
      taskId: row.id, queue: row.queue, type: "escalated", actorId: actor.id,
      payload: { version: row.version, status: row.status, reason: `Rejected in review ${row.failureCount} times`, failureCount: row.failureCount, needsCheck: row.needsCheck },
    });
  }
  await appendEvents(tx, clock, events);
  return ok((await toTasks(tx, [row], actor))[0]!);
}
