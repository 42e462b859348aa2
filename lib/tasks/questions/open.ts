import { z } from "zod";
import { defineOperation } from "../core/engine";
import { ok, type Result } from "../core/types";
import { answerableBy } from "./answerable";
import { expireQuestions } from "./expire";
import { openQuestionRows, type Question } from "./rows";
import { ANSWERERS } from "./rules";

// The open questions a person may answer (the inbox's Questions section, the CLI's `question
// list`): those the one answer rule admits (answerable.ts: never the reader's own party's; staff
// only in the queues they are shown), so the list offers nothing the answer refuses. Past-deadline
// ones are expired first, lazily, so the list never offers a question that can no longer be answered.

/** An open question with its task's title, queue and version (a budget raise names the version). */
export type OpenQuestion = Question & { title: string; queue: string; taskVersion: number };

export const listOpenQuestions = defineOperation({
  name: "listOpenQuestions",
  who: ANSWERERS,
  input: z.strictObject({}),
  async run(tx, _input, { actor, clock, standing }): Promise<Result<OpenQuestion[]>> {
    await expireQuestions(tx, clock, { limit: 500 });
    return ok(await openQuestionRows(tx, answerableBy(actor, standing), standing !== "staff"));
  },
});
