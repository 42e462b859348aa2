import { sql } from "drizzle-orm";
import type { TaskStatus } from "@/db/schema";
import { defineOperation } from "../core/engine";
import { EVERYONE } from "../core/standing";
import { fail, ok, type Result } from "../core/types";
import { HELD, PARKED } from "../core/machine";
import { readFenceKey, openFence } from "./fence";
import { verifyFenceInput } from "./verify-input";

// POST /fences/verify: what a downstream system asks before it acts on an agent's request
// (docs/fences.md). A fence that verifies names a task and an attempt; the answer says
// whether that attempt still holds the task, and if not, why not.

export const FENCE_REASONS = ["current", "superseded", "released", "lapsed", "finished"] as const;
export type FenceReason = (typeof FENCE_REASONS)[number];

export interface FenceVerdict {
  current: boolean;
  taskId: string;
  attempt: number;
  currentAttempt: number;
  status: TaskStatus;
  reason: FenceReason;
}


const notAFence = () =>
  fail({ code: "invalid_request", message: "fence does not verify: it is not a fence this board issued (forged, truncated or altered)", field: "fence" });

export const verifyFence = defineOperation({
  name: "verifyFence",
  who: EVERYONE,
  input: verifyFenceInput,
  async run(tx, input, { clock }): Promise<Result<FenceVerdict>> {
    const named = openFence(await readFenceKey(tx), input.fence);
    if (!named) return notAFence();
    // How the attempt ended matters only when it is the last one and nobody holds the task.
    const [row] = await tx.execute<{ status: TaskStatus; attempt: number; lapsed: boolean; ended_by: string | null }>(sql`
      SELECT t.status, t.attempt, coalesce(t.lease_until <= ${clock.now()}, false) AS lapsed,
             CASE WHEN t.status = 'queued' AND t.attempt = ${named.attempt} THEN
               (SELECT e.type::text FROM task_events e
                WHERE e.task_id = t.id AND e.type IN ('released', 'lease_expired', 'failed')
                ORDER BY e.id DESC LIMIT 1)
             END AS ended_by
      FROM tasks t WHERE t.id = ${named.taskId}::bigint`);
    // A signed fence for a task or an attempt that never existed came from no holding here.
    if (!row || named.attempt > Number(row.attempt) || named.attempt === 0) return notAFence();
    const currentAttempt = Number(row.attempt);
    const reason: FenceReason =
      named.attempt < currentAttempt ? "superseded"
      : HELD.includes(row.status) ? (row.lapsed ? "lapsed" : "current")
      // Parked on a question (docs/questions.md): the attempt still holds the task, its fence stays good.
      : PARKED.includes(row.status) ? "current"
      : row.status === "queued" ? (row.ended_by === "lease_expired" ? "lapsed" : "released")
      : "finished";
    return ok({ current: reason === "current", taskId: named.taskId, attempt: named.attempt, currentAttempt, status: row.status, reason });
  },
});
