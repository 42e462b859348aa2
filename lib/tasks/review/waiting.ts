import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { listTasks } from "../reads/queries";
import { heldBy, partyOf, submittedBy } from "./party";
import type { ActorRef, Task } from "../core/types";

const PARTY = sql.raw("party.ids");

/**
 * An in_review task `t` the party `party.ids` (a CTE of partyOf) may review: not submitted by
 * it, and no attempt of it in the history — selfReview's rule (review.ts) in SQL, for the
 * reads that list or count what a person may review (this count, lib/attention).
 */
export const reviewableByParty = sql`t.status = 'in_review'
  AND NOT ${submittedBy("t", PARTY)}
  AND NOT ${heldBy(sql`t.id`, PARTY)}`;

/**
 * "Reviews waiting for me" (the board's count for people): in_review tasks this actor may
 * review — not submitted by them, and no attempt of theirs in the history, their OAuth agents
 * counted as them (the engine's rule, lib/tasks/review/review.ts and party.ts). Capped at `cap` + 1, as the board's counts are.
 */
export async function reviewsWaitingFor(db: Executor, actorId: string, cap = 1000): Promise<number> {
  const [row] = await db.execute<{ n: number }>(sql`
    WITH party AS (SELECT ${partyOf(actorId)} AS ids)
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM tasks t, party WHERE ${reviewableByParty}
      LIMIT ${cap + 1}
    ) waiting`);
  return Number(row?.n ?? 0);
}

/** The most in_review tasks the inbox lists (the oldest first; its bulk review acts on these). */
export const IN_REVIEW_LISTED = 100;

export interface InReview {
  queue: string | null;
  /** Oldest first: the longest waiting is decided first. */
  tasks: Task[];
  /** More wait than are listed. */
  truncated: boolean;
}

/**
 * The inbox's "Waiting for review" list: in_review tasks of every reviewer, including ones the
 * reader worked on — who may decide which is the engine's (a bulk review reports each refusal).
 */
export async function readInReview(db: Executor, queue: string | null, caller: ActorRef): Promise<InReview> {
  const page = await listTasks(db, { status: "in_review", order: "id", limit: IN_REVIEW_LISTED, ...(queue ? { queue } : {}) }, caller);
  return { queue, tasks: page.items, truncated: page.nextCursor !== null };
}
