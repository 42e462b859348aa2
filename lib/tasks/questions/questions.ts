import { sql } from "drizzle-orm";
import { SUMMARY_MAX } from "../core/attempt";
import { explainMiss, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { EVERYONE } from "../core/standing";
import { loadTask, toTasks } from "../core/task-row";
import { ownerTransition, transition } from "../core/transition";
import { fail, ok, type Result, type Task } from "../core/types";
import { progressMade } from "../holding/no-progress";
import { answerRefusal } from "./answerable";
import { expireQuestions, expiryReason } from "./expire";
import { publicQuestion, readQuestionRow, taskQuestionRows, type Question } from "./rows";
import { answerQuestionInput, askQuestionInput, listQuestionsInput, readQuestionInput } from "./schemas";

// Asking a person (docs/contract.md#asking-a-person, docs/questions.md): the owner of a started task asks, which
// parks its lease (awaiting_input: no lapse, no heartbeat, the owner kept); a person answers,
// which gives the owner a fresh lease (started again). The machine's rows: ask, answer,
// expireQuestion (lib/tasks/core/machine.ts).

const asking = ownerTransition("ask");

export interface Asked {
  question: Question;
  task: Task;
  /** An ask: false when a retry found the question its first call made. */
  created?: boolean;
}

/** POST /tasks/{id}/questions: the owner of a started task (lease valid, version named) asks a person. */
export const askQuestion = defineOperation({
  name: "askQuestion",
  makes: ["ask"],
  input: askQuestionInput,
  async run(tx, input, { actor, clock, instance }): Promise<Result<Asked>> {
    const now = clock.now();
    const changed = await transition(
      tx, input.taskId,
      sql`status = 'awaiting_input', lease_until = NULL, version = t.version + 1, updated_at = ${now}, ${progressMade}`,
      asking.guard(actor, input.version, now),
    );
    if (!changed) {
      const missed = await explainMiss(tx, clock, asking.expected(input, actor));
      if (!missed.ok) return missed;
      // A retry of an ask that took effect: the question it made.
      const last = (await taskQuestionRows(tx, input.taskId)).at(-1);
      return last ? ok({ question: publicQuestion(last), task: missed.value, created: false }) : fail({ code: "invalid_transition", message: `Task ${input.taskId} has no question`, task: missed.value });
    }
    const { row } = changed;
    const choices = input.choices ?? [];
    const [inserted] = await tx.execute<{ id: string }>(sql`
      INSERT INTO task_questions (task_id, kind, question, choices, attempt, asked_by_id, asked_at, deadline)
      SELECT ${input.taskId}::bigint, 'agent', ${input.question}, ${JSON.stringify(choices)}::jsonb, ${row.attempt}, ${actor.id}::uuid, ${now},
             ${now} + make_interval(secs => coalesce(${input.timeoutSeconds ?? null}::int, q.question_timeout_seconds))
      FROM queues q WHERE q.name = ${row.queue}
      RETURNING id::text`);
    const question = (await readQuestionRow(tx, input.taskId, inserted!.id))!;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "question_asked", actorId: actor.id,
      payload: {
        version: row.version, status: row.status, questionId: question.id, question: question.question, kind: question.kind,
        choices, deadline: question.deadline.toISOString(), ...(instance ? { instance } : {}),
      },
    }]);
    return ok({ question: publicQuestion(question), task: (await toTasks(tx, [row], actor))[0]!, created: true });
  },
});

/** The hand-off note an answer leaves: whoever holds the task next reads question and answer there. */
function answerNote(question: string, text: string, choice: string | null) {
  const said = `Asked: ${question}\nAnswer: ${text}${choice !== null && choice !== text ? ` (choice: ${choice})` : ""}`;
  return said.length > SUMMARY_MAX ? `${said.slice(0, SUMMARY_MAX - 1)}…` : said;
}

/**
 * POST /tasks/{id}/questions/{qid}/answer: a person (or a supervisor's token) answers an open
 * question; the task returns to `started` for its owner with a fresh lease of the queue's
 * length, version + 1. A question past its deadline is expired first (and so refused). Who may
 * answer is answerable.ts's rule (the asker's party: 403 self_review; staff outside the queues
 * they are shown: 403 forbidden); an answered or expired question: 409
 * invalid_transition; a choice the question does not offer: 400 (field choice). A refusal writes
 * nothing but an expiry that was due anyway.
 */
export const answerQuestion = defineOperation({
  name: "answerQuestion",
  makes: ["answer"],
  input: answerQuestionInput,
  async run(tx, input, { actor, clock, standing }): Promise<Result<Asked>> {
    const found = await readQuestionRow(tx, input.taskId, input.questionId);
    if (!found) return (await loadTask(tx, input.taskId)) ? fail({ code: "not_found", message: `Task ${input.taskId} has no question ${input.questionId}` }) : notFound(input.taskId);
    if (input.choice !== undefined && !found.choices.includes(input.choice)) {
      const offered = found.choices.length > 0 ? `one of ${found.choices.map((c) => JSON.stringify(c)).join(", ")}` : "absent: the question offers no choices";
      return fail({ code: "invalid_request", message: `choice must be ${offered}`, field: "choice" });
    }
    const before = await loadTask(tx, input.taskId);
    if (found.kind === "budget" && !found.answer && !found.expiredAt) {
      return fail({ code: "invalid_transition", message: `Question ${found.id} asks for a bigger budget: a supervisor raises it (POST /tasks/${input.taskId}/budget), which answers it`, ...(before ? { task: before } : {}) });
    }
    const refusal = await answerRefusal(tx, actor, standing, input.taskId, input.questionId);
    if (refusal) return fail({ ...refusal, ...(before ? { task: before } : {}) });
    await expireQuestions(tx, clock, { taskId: input.taskId });
    const now = clock.now();
    const note = { summary: answerNote(found.question, input.text, input.choice ?? null), next: null, artifacts: [], by: actor };
    const open = sql`EXISTS (SELECT 1 FROM task_questions x WHERE x.id = ${input.questionId}::bigint AND x.task_id = t.id AND x.attempt = t.attempt
      AND x.answered_at IS NULL AND x.expired_at IS NULL AND x.deadline > ${now})`;
    const changed = await transition(
      tx, input.taskId,
      sql`status = 'started', lease_until = ${now} + make_interval(secs => q.lease_seconds), lease_seconds = q.lease_seconds,
          progress = NULL, progress_at = NULL, handoff = ${JSON.stringify(note)}::jsonb, handoff_at = ${now},
          version = t.version + 1, updated_at = ${now}`,
      sql`t.status = 'awaiting_input' AND ${open}`,
    );
    if (!changed) return explainUnanswerable(tx, input.taskId, input.questionId);
    const { row } = changed;
    await tx.execute(sql`
      UPDATE task_questions SET answer_text = ${input.text}, answer_choice = ${input.choice ?? null}, answered_by_id = ${actor.id}::uuid, answered_at = ${now}
      WHERE id = ${input.questionId}::bigint AND answered_at IS NULL`);
    const question = (await readQuestionRow(tx, input.taskId, input.questionId))!;
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "question_answered", actorId: actor.id,
      payload: {
        version: row.version, status: row.status, questionId: question.id, question: question.question, kind: question.kind,
        answer: { text: input.text, choice: input.choice ?? null }, leaseUntil: row.leaseUntil?.toISOString(), leaseSeconds: row.leaseSeconds ?? undefined,
        handoff: note,
      },
    }]);
    return ok({ question: publicQuestion(question), task: (await toTasks(tx, [row], actor))[0]! });
  },
});

async function explainUnanswerable(tx: Parameters<typeof loadTask>[0], taskId: string, questionId: string): Promise<Result<never>> {
  const task = (await loadTask(tx, taskId)) ?? undefined;
  const question = await readQuestionRow(tx, taskId, questionId);
  const refuse = (message: string) => fail({ code: "invalid_transition", message, ...(task ? { task } : {}) });
  if (question?.answer) return refuse(`Question ${questionId} was answered already by ${question.answer.by.name}: an answer stands`);
  if (question?.expiredAt) return refuse(expiryReason(questionId, question.question, question.deadline) + ": the task went to the supervisors' inbox");
  return refuse(`Task ${taskId} is ${task?.status ?? "gone"}: question ${questionId} is not the one it waits on`);
}

/** GET /tasks/{id}/questions/{qid}: one question (a past deadline expires it first, lazily). */
export const getQuestion = defineOperation({
  name: "getQuestion",
  who: EVERYONE,
  input: readQuestionInput,
  async run(tx, input, { clock }): Promise<Result<Question>> {
    await expireQuestions(tx, clock, { taskId: input.taskId });
    const found = await readQuestionRow(tx, input.taskId, input.questionId);
    if (found) return ok(publicQuestion(found));
    return (await loadTask(tx, input.taskId)) ? fail({ code: "not_found", message: `Task ${input.taskId} has no question ${input.questionId}` }) : notFound(input.taskId);
  },
});

/** A task's questions, oldest first (the task page). */
export const listTaskQuestions = defineOperation({
  name: "listQuestions",
  who: EVERYONE,
  input: listQuestionsInput,
  async run(tx, input, { clock }): Promise<Result<Question[]>> {
    if (!(await loadTask(tx, input.taskId))) return notFound(input.taskId);
    await expireQuestions(tx, clock, { taskId: input.taskId });
    return ok((await taskQuestionRows(tx, input.taskId)).map(publicQuestion));
  },
});
