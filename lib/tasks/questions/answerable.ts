import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { Standing } from "../core/standing";
import type { ActorRef, EngineError } from "../core/types";
import { partyOf } from "../review/party";

// Who may answer a given question: the one rule the answer, the inbox's list and anything that
// counts "questions a person may answer" (attention, notifications) read. Beside the standing
// (ANSWERERS, rules.ts):
// - the maker–checker party (review/party.ts): a person and their OAuth connections' agents are
//   one party, and a party never answers a question it asked or whose task it holds — else a
//   person answers their own model, or a model itself through a second connection;
// - staff answer only in the queues they are shown: those whose claimants admit people, not
//   archived. Supervisors, supervisor tokens and the operator answer in every queue.

/** SQL over `q` (queues): the queue's questions are shown to staff. */
export const shownToStaff = sql`(q.claimants IN ('anyone', 'people') AND q.archived_at IS NULL)`;

/**
 * SQL predicate over `x` (task_questions), `t` (tasks) and `q` (queues): `actor`, calling with
 * `standing`, may answer the question. For lists; the act reads `answerRefusal` for its sentence.
 */
export function answerableBy(actor: ActorRef, standing: Standing | undefined): SQL {
  const party = partyOf(actor.id);
  const own = sql`(x.asked_by_id = ANY (${party}) OR coalesce(t.owner_id = ANY (${party}), false))`;
  return standing === "staff" ? sql`(NOT ${own} AND ${shownToStaff})` : sql`(NOT ${own})`;
}

/** The refusal of `actor`'s answer to question `questionId` of task `taskId`, or null when they may answer. */
export async function answerRefusal(
  db: Executor, actor: ActorRef, standing: Standing | undefined, taskId: string, questionId: string,
): Promise<EngineError | null> {
  const [row] = await db.execute<{ asked_self: boolean; owns: boolean; party: boolean; shown: boolean; queue: string }>(sql`
    WITH party AS (SELECT ${partyOf(actor.id)} AS ids)
    SELECT x.asked_by_id = ${actor.id}::uuid AS asked_self, coalesce(t.owner_id = ${actor.id}::uuid, false) AS owns,
           (x.asked_by_id = ANY (party.ids) OR coalesce(t.owner_id = ANY (party.ids), false)) AS party,
           ${shownToStaff} AS shown, q.name AS queue
    FROM task_questions x JOIN tasks t ON t.id = x.task_id JOIN queues q ON q.name = t.queue, party
    WHERE x.id = ${questionId}::bigint AND x.task_id = ${taskId}::bigint`);
  if (!row) return null;
  if (row.asked_self || row.owns) {
    return { code: "self_review", message: `You ${row.asked_self ? "asked" : "hold the task of"} question ${questionId}: someone else must answer it` };
  }
  if (row.party) {
    return { code: "self_review", message: `An OAuth connection of yours, or the person it acts for, asked question ${questionId} or holds its task: someone else must answer it` };
  }
  if (standing === "staff" && !row.shown) {
    return { code: "forbidden", message: `Queue ${row.queue} is not shown to staff (claimants: agents, or archived): a supervisor answers its questions` };
  }
  return null;
}
