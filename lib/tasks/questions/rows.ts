import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { parseTimestamp } from "../core/task-row";
import type { ActorRef } from "../core/types";

// A question as every caller sees it (docs/contract.md#asking-a-person's question object, plus its kind and, once past
// its deadline unanswered, when it expired). Dates serialise to ISO 8601.

export interface QuestionAnswer {
  text: string;
  choice: string | null;
  by: ActorRef;
  at: Date;
}

export interface Question {
  id: string;
  taskId: string;
  kind: "agent" | "budget";
  question: string;
  choices: string[];
  askedBy: ActorRef;
  askedAt: Date;
  deadline: Date;
  answer: QuestionAnswer | null;
  /** Past its deadline unanswered: the task went to the supervisors' inbox (null while open or once answered). */
  expiredAt: Date | null;
}

const COLUMNS = sql.raw(`x.id::text AS id, x.task_id::text AS task_id, x.kind, x.question, x.choices, x.attempt, x.asked_at, x.deadline,
  x.asked_by_id, a.name AS asked_by_name, a.kind AS asked_by_kind, x.answer_text, x.answer_choice, x.answered_at,
  x.answered_by_id, b.name AS answered_by_name, b.kind AS answered_by_kind, x.expired_at`);
const JOINS = sql.raw(`JOIN actors a ON a.id = x.asked_by_id LEFT JOIN actors b ON b.id = x.answered_by_id`);

export interface QuestionRow extends Question {
  /** The attempt that asked. */
  attempt: number;
}

function toQuestion(raw: Record<string, unknown>): QuestionRow {
  const actor = (id: unknown, name: unknown, kind: unknown): ActorRef => ({ id: String(id), name: String(name), kind: kind as ActorRef["kind"] });
  return {
    id: String(raw.id), taskId: String(raw.task_id), kind: raw.kind as Question["kind"], question: String(raw.question),
    choices: (raw.choices as string[] | null) ?? [], attempt: Number(raw.attempt),
    askedBy: actor(raw.asked_by_id, raw.asked_by_name, raw.asked_by_kind), askedAt: parseTimestamp(raw.asked_at as string),
    deadline: parseTimestamp(raw.deadline as string),
    answer: raw.answered_at
      ? { text: String(raw.answer_text), choice: (raw.answer_choice as string | null) ?? null, by: actor(raw.answered_by_id, raw.answered_by_name, raw.answered_by_kind), at: parseTimestamp(raw.answered_at as string) }
      : null,
    expiredAt: raw.expired_at ? parseTimestamp(raw.expired_at as string) : null,
  };
}

/** The wire's question: without the attempt, which the task carries. */
export const publicQuestion = ({ attempt: _attempt, ...question }: QuestionRow): Question => question;

export async function readQuestionRow(db: Executor, taskId: string, questionId: string): Promise<QuestionRow | null> {
  const [raw] = await db.execute<Record<string, unknown>>(sql`
    SELECT ${COLUMNS} FROM task_questions x ${JOINS} WHERE x.id = ${questionId}::bigint AND x.task_id = ${taskId}::bigint`);
  return raw ? toQuestion(raw) : null;
}

/** A task's questions, oldest first. */
export async function taskQuestionRows(db: Executor, taskId: string): Promise<QuestionRow[]> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    SELECT ${COLUMNS} FROM task_questions x ${JOINS} WHERE x.task_id = ${taskId}::bigint ORDER BY x.id`);
  return rows.map(toQuestion);
}

/**
 * Open questions (unanswered, not expired), soonest deadline first, that `answerable` admits (an
 * SQL predicate over x, t and q: answerable.ts), with their task's title and queue: the inbox's
 * Questions section. `budgets: false` leaves out budget questions (only a supervisor raises a budget).
 */
export async function openQuestionRows(
  db: Executor, answerable: SQL, budgets: boolean, limit = 200,
): Promise<(Question & { title: string; queue: string; taskVersion: number })[]> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    SELECT ${COLUMNS}, t.title, t.queue, t.version AS task_version FROM task_questions x ${JOINS} JOIN tasks t ON t.id = x.task_id JOIN queues q ON q.name = t.queue
    WHERE x.answered_at IS NULL AND x.expired_at IS NULL AND t.status = 'awaiting_input' AND ${answerable}
      ${budgets ? sql`` : sql`AND x.kind = 'agent'`}
    ORDER BY x.deadline, x.id LIMIT ${limit}`);
  return rows.map((raw) => ({ ...publicQuestion(toQuestion(raw)), title: String(raw.title), queue: String(raw.queue), taskVersion: Number(raw.task_version) }));
}
