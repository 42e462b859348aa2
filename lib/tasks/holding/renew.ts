import { sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { instanceOf } from "../core/attempt";
import { refuseAtCeiling, withinCeiling } from "../claiming/ceiling";
import { explainMiss } from "../core/conflicts";
import { defineOperation, type OperationContext } from "../core/engine";
import { appendEvents, type NewEvent } from "../core/events";
import { heartbeatInput, type HeartbeatInput } from "../core/schemas";
import { ownerTransition, transition } from "../core/transition";
import { ok, type Result, type Task } from "../core/types";
import { parkOnBudget, recordSpend, renewWithSpend, warningOf } from "../budgets/spend";
import { countRenewal, refuseWithoutProgress, withinProgressLimit } from "./no-progress";
import { holderTasks } from "./unread";

const move = ownerTransition("renew");

/**
 * Heartbeat: the owner pushes lease_until forward by the claim's lease length. Only while
 * the lease is still valid — a lapsed lease may already be someone else's — and within
 * the queue's attempt ceiling. Not a transition: the version stays. Progress, when sent,
 * becomes the task's `progress` for this attempt. Spend, when sent, is added to the task's
 * `spent`; a heartbeat whose spend reaches the budget parks the task instead of renewing it
 * (the machine's renew `or`, lib/tasks/budgets/spend.ts), and answers with it awaiting_input.
 * A queue may demand progress: at its maxRenewalsWithoutProgress the renewal is refused and
 * the attempt fails (no-progress.ts). The answer carries the holder's `unread` comments.
 */
export const renew = defineOperation({
  name: "renew",
  makes: ["renew"],
  input: heartbeatInput,
  run: renewLease,
});

/**
 * The renewal's one guarded UPDATE; then, when it changed nothing, why: the attempt ceiling,
 * the queue's limit of renewals without progress (no-progress.ts), or whatever explainMiss finds.
 */
async function renewLease(tx: Tx, input: HeartbeatInput, ctx: OperationContext): Promise<Result<Task>> {
  const { actor, clock, instance } = ctx;
  const now = clock.now();
  const progress = input.progress !== undefined
    ? sql`, progress = ${JSON.stringify(input.progress)}::jsonb, progress_at = ${now}`
    : sql``;
  // Without spend the statement stays the plain renewal: no budget arithmetic for the loop's
  // heartbeat, and one prepared text (db/statements/renew.sql).
  const counted = sql`${progress}, ${countRenewal(input.progress)}`;
  const set = input.spend !== undefined
    ? renewWithSpend(input.spend, now, counted)
    : sql`lease_until = ${now} + make_interval(secs => t.lease_seconds), updated_at = ${now} ${counted}`;
  const guard = sql`${withinCeiling(now)} AND ${withinProgressLimit(input.progress)}`;
  const changed = await transition(tx, input.taskId, set, move.guard(actor, input.version, now, guard));
  if (!changed) {
    const atCeiling = await refuseAtCeiling(tx, clock, input, actor, instance);
    if (atCeiling) return atCeiling;
    const stalled = await refuseWithoutProgress(tx, input, ctx);
    if (stalled === "recounted") return renewLease(tx, input, ctx);
    if (stalled) return stalled;
    return explainMiss(tx, clock, move.expected(input, actor));
  }
  const { row } = changed;
  const parked = row.status === "awaiting_input";
  const spend = input.spend ?? 0;
  const budget: NewEvent[] = input.spend !== undefined ? warningOf(row, spend, actor.id) : [];
  if (parked) budget.push(...(await parkOnBudget(tx, clock, row)));
  if (spend > 0) await recordSpend(tx, clock, actor.id, row, spend);
  await appendEvents(tx, clock, [{
    taskId: row.id, queue: row.queue, type: "heartbeat", actorId: actor.id,
    payload: {
      // A heartbeat that parked the task: its own version is the one before the park's.
      version: parked ? row.version - 1 : row.version,
      status: parked ? changed.previous.status : row.status,
      leaseUntil: row.leaseUntil?.toISOString(),
      ...(input.progress !== undefined ? { progress: input.progress } : {}),
      ...(input.spend !== undefined ? { spend: input.spend, spent: Number(row.spent) } : {}),
      ...instanceOf(instance),
    },
  }, ...budget]);
  return ok((await holderTasks(tx, [changed], actor))[0]!);
}
