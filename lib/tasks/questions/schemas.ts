import { z } from "zod";
import { LIMITS } from "@/lib/limits";
import { rowId, taskId, text, version } from "../core/schemas";

// Asking a person's inputs (docs/contract.md#asking-a-person): one schema per body, shared by the API, the actions and the engine.

const timeout = LIMITS.questionTimeoutSeconds;

export const askQuestionBody = z.strictObject({
  version,
  question: text(LIMITS.question, 1),
  choices: z
    .array(text(LIMITS.questionChoice, 1), "must be a list of choices")
    .max(LIMITS.questionChoices, `must be at most ${LIMITS.questionChoices} choices`)
    .refine((choices) => new Set(choices).size === choices.length, "must not repeat a choice")
    .optional(),
  timeoutSeconds: z.number().int("must be a whole number").min(timeout.min).max(timeout.max).optional(),
});
export const askQuestionInput = askQuestionBody.extend({ taskId });

export const questionId = rowId("a question id");

export const answerQuestionBody = z.strictObject({
  text: text(LIMITS.answer, 1),
  choice: text(LIMITS.questionChoice, 1).optional(),
});
export const answerQuestionInput = answerQuestionBody.extend({ taskId, questionId });

export const readQuestionInput = z.strictObject({ taskId, questionId });
export const readQuestionQuery = z.strictObject({
  wait: z.coerce
    .number("must be a number of seconds")
    .int("must be a whole number")
    .min(0, `must be from 0 to ${LIMITS.questionWaitSeconds} seconds`)
    .max(LIMITS.questionWaitSeconds, `must be from 0 to ${LIMITS.questionWaitSeconds} seconds`)
    .optional(),
});
export const listQuestionsInput = z.strictObject({ taskId });

export type AskQuestionInput = z.infer<typeof askQuestionInput>;
export type AnswerQuestionInput = z.infer<typeof answerQuestionInput>;
