import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { actors, taskState } from "./tasks";

/** Who asks: the task's owner (an agent or a person), or the system on its behalf (a budget reached). */
export const questionKind = pgEnum("question_kind", ["agent", "budget"]);

/**
 * Questions to a person (docs/contract.md#asking-a-person, docs/questions.md). Asking parks the
 * task in awaiting_input; the answer returns it to started for its owner. At most one open
 * question a task (the status says so: a parked task cannot ask again). The answer is kept
 * here and in the log (question_answered), so whoever holds the task next reads it.
 */
export const taskQuestions = pgTable(
  "task_questions",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    taskId: bigint("task_id", { mode: "bigint" }).notNull().references(() => taskState.id),
    kind: questionKind("kind").notNull().default("agent"),
    question: text("question").notNull(),
    choices: jsonb("choices").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    /** The attempt that asked (the answer returns the task to it). */
    attempt: integer("attempt").notNull(),
    askedById: uuid("asked_by_id").notNull().references(() => actors.id),
    askedAt: timestamp("asked_at", { withTimezone: true }).notNull(),
    deadline: timestamp("deadline", { withTimezone: true }).notNull(),
    answerText: text("answer_text"),
    answerChoice: text("answer_choice"),
    answeredById: uuid("answered_by_id").references(() => actors.id),
    answeredAt: timestamp("answered_at", { withTimezone: true }),
    /** Past its deadline unanswered: the task went to the supervisors' inbox (the question kept). */
    expiredAt: timestamp("expired_at", { withTimezone: true }),
  },
  (t) => [
    index("task_questions_task").on(t.taskId, t.id),
    // The open ones, by deadline: what the inbox lists and the deadline sweep walks.
    index("task_questions_open").on(t.deadline).where(sql`${t.answeredAt} IS NULL AND ${t.expiredAt} IS NULL`),
    check("task_questions_answered", sql`(${t.answeredAt} IS NULL) = (${t.answerText} IS NULL) AND (${t.answeredAt} IS NULL) = (${t.answeredById} IS NULL)`),
    check("task_questions_settled_once", sql`${t.answeredAt} IS NULL OR ${t.expiredAt} IS NULL`),
  ],
);
