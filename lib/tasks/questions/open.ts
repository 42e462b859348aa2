import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "@/db/client";
import type { Standing } from "../core/standing";
import { defineOperation } from "../core/engine";
import { ok, type Result } from "../core/types";
import { expireQuestions } from "./expire";
import { openQuestionRows, type Question } from "./rows";
import { ANSWERERS } from "./rules";

// The open questions a person may answer (the inbox's Questions section, the CLI's `question
// list`): a supervisor (and the operator) sees every queue's; staff see their queues' — those
// whose claimants admit people (anyone or people), the queues a person works in. Past-deadline
// ones are expired first, lazily, so the list never offers a question that can no longer be answered.

/** An open question with its task's title, queue and version (a budget raise names the version). */
export type OpenQuestion = Question & { title: string; queue: string; taskVersion: number };

export const listOpenQuestions = defineOperation({
  name: "listOpenQuestions",
  who: ANSWERERS,
  input: z.strictObject({}),
  async run(tx, _input, { clock, standing }): Promise<Result<OpenQuestion[]>> {
    await expireQuestions(tx, clock, { limit: 500 });
    return ok(await openQuestionRows(tx, await answerableQueues(tx, standing)));
  },
});

/**
 * The queues whose questions `standing` is asked (null: every queue): staff, the queues whose
 * claimants admit people; a supervisor or the operator, all. The inbox's list and the
 * notification of a question (lib/notify/facts.ts) both read it.
 */
export async function answerableQueues(db: Executor, standing: Standing | undefined): Promise<string[] | null> {
  if (standing !== "staff") return null;
  return (await db.execute<{ name: string }>(sql`SELECT name FROM queues WHERE claimants IN ('anyone', 'people') AND archived_at IS NULL`)).map((q) => q.name);
}
