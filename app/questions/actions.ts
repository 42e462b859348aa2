"use server";

import { operationAction } from "@/lib/auth/action";
import { answerQuestion, listOpenQuestions, listTaskQuestions } from "@/lib/tasks";

// Asking a person, in the browser (docs/questions.md): the inbox's open questions (staff see
// their queues', supervisors every queue's), a task's questions, and a person's answer — the
// same engine operations as the API and the CLI, which decide who may (never the asker).
export const openQuestionsAction = operationAction("staff", listOpenQuestions);
export const taskQuestionsAction = operationAction("staff", listTaskQuestions);
export const answerQuestionAction = operationAction("staff", answerQuestion);
