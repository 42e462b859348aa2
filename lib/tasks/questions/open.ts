import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "@/db/client";
import type { Standing } from "../core/standing";
import { defineOperation } from "../core/engine";
import { ok, type Result } from "../core/types";
import { answerableBy, shownToStaff } from "./answerable";
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

/**
 * The queues whose questions `standing` is asked (null: every queue): staff, the queues whose
 * claimants admit people; a supervisor or the operator, all. The inbox's list and the
 * notification of a question (lib/notify/facts.ts) both read it.
 */
export async function answerableQueues(db: Executor, standing: Standing | undefined): Promise<string[] | null> {
  if (standing !== "staff") return null;
  return (await db.execute<{ name: string }>(sql`SELECT name FROM queues q WHERE ${shownToStaff}`)).map((q) => q.name);
}
