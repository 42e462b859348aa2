import { sql } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import type { Clock } from "../core/clock";
import { appendEvents, SYSTEM_ACTOR_ID, type NewEvent } from "../core/events";
import { endAttempt, transition } from "../core/transition";
import { effectsLeftUnknown } from "../effects/ledger";

// A question past its deadline (docs/questions.md): the machine's `expireQuestion` — the task
// goes to the supervisors' inbox (escalated, the reason naming the question), the owner's
// attempt ends, the question is kept as it was asked. Made lazily where questions are read
// (GET …/questions/{qid}, an answer, the inbox) and by every server's background pass
// (lib/question-deadlines.ts), like a lapsed lease.

/** The escalation's reason: names the question, so the inbox says why. */
export const expiryReason = (id: string, question: string, deadline: Date | string) =>
  `Question ${id} went unanswered past its deadline (${new Date(deadline).toISOString()}): "${question.length > 200 ? `${question.slice(0, 199)}…` : question}"`;

/**
 * Expires the open questions whose deadline has passed (of one task, or the oldest `limit`
 * anywhere). Each task row is locked before its question, as an answer locks them, so an
 * answer and an expiry of the same question never deadlock and exactly one of them wins.
 * Returns how many it expired.
 */
export async function expireQuestions(tx: Tx, clock: Clock, scope: { taskId?: string; limit?: number } = {}): Promise<number> {
  const now = clock.now();
  const due = await tx.execute<{ id: string; task_id: string; question: string; deadline: string; kind: "agent" | "budget" }>(sql`
    SELECT x.id::text, x.task_id::text, x.question, x.deadline, x.kind FROM task_questions x
    WHERE x.answered_at IS NULL AND x.expired_at IS NULL AND x.deadline <= ${now}
      ${scope.taskId ? sql`AND x.task_id = ${scope.taskId}::bigint` : sql``}
    ORDER BY x.deadline LIMIT ${scope.limit ?? 100}`);
  let expired = 0;
  for (const q of due) {
    const open = sql`EXISTS (SELECT 1 FROM task_questions x WHERE x.id = ${q.id}::bigint AND x.task_id = t.id AND x.attempt = t.attempt
      AND x.answered_at IS NULL AND x.expired_at IS NULL AND x.deadline <= ${now})`;
    const changed = await transition(tx, q.task_id, endAttempt(sql`'escalated'::task_status`, now), sql`t.status = 'awaiting_input' AND ${open}`);
    if (!changed) continue;
    await tx.execute(sql`UPDATE task_questions SET expired_at = ${now} WHERE id = ${q.id}::bigint AND answered_at IS NULL AND expired_at IS NULL`);
    const { row, previous } = changed;
    const base = { taskId: row.id, queue: row.queue, actorId: SYSTEM_ACTOR_ID };
    const events: NewEvent[] = [
      { ...base, type: "question_expired", payload: { version: row.version, status: row.status, questionId: q.id, question: q.question, kind: q.kind, previousOwnerId: previous.ownerId } },
      { ...base, type: "escalated", payload: { version: row.version, status: row.status, reason: expiryReason(q.id, q.question, q.deadline), needsCheck: row.needsCheck } },
      ...(previous.sideEffectRecorded ? await effectsLeftUnknown(tx, [row]) : []),
    ];
    await appendEvents(tx, clock, events);
    expired += 1;
  }
  return expired;
}

/** One background pass over every queue (a transaction of its own); the count it expired. */
export async function expireDueQuestions(db: Db, clock: Clock): Promise<number> {
  return db.transaction((tx) => expireQuestions(tx, clock));
}
