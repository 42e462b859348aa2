import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { Claimants, TaskStatus } from "@/db/schema";
import { claimantRefusal } from "./claimants";
import type { Clock } from "../core/clock";
import { notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { idArray } from "../authoring/graph";
import { readinessInput } from "../core/schemas";
import { parseTimestamp } from "../core/task-row";
import { HELD } from "../core/machine";
import { statusIn } from "../core/transition";
import { ok, type ActorRef, type EngineError, type Result, type Task } from "../core/types";
import { EVERYONE } from "../core/standing";
import { conflictingHoldings } from "../reservations/held";
import { readMonthlyCap } from "../budgets/cap";

// "Why is this task not being picked up?" — answered once, here, for the API's readiness
// route, MCP's task_readiness and the task page; the targeted claim explains its refusals
// with the same reasons, so what readiness says is what a claim then does.

import type { ReadinessCode } from "./readiness-codes";
export type { ReadinessCode };

export interface ReadinessReason {
  code: ReadinessCode;
  message: string;
}

export interface Readiness {
  /** The caller's claim of this task (at its current version) would succeed now. */
  claimable: boolean;
  /** Everything in the way, most fundamental first. needs_check alone does not stop a claim, only a start. */
  reasons: ReadinessReason[];
  /** When only time is in the way (notBefore, the lock delay), the moment it becomes claimable. */
  claimableAt: Date | null;
}

interface Facts {
  status: TaskStatus;
  owner_name: string | null;
  owner_id: string | null;
  lease_until: Date | null;
  lapsed: boolean;
  /** Lapsed, but the queue's lock delay has not passed yet: claimable at delay_until. */
  delayed: boolean;
  delay_until: Date | null;
  not_before: Date | null;
  waiting: boolean;
  needs_check: boolean;
  blocked_by: string[];
  paused: boolean;
  archived_at: Date | null;
  paused_by: string | null;
  paused_at: Date | null;
  breaker_reason: string | null;
  queue: string;
  claimants: Claimants;
}

/** Who may claim in this queue (the queue setting `claimants`): the claim's own 403, in words. */
function claimantsReason(facts: Facts, caller: ActorRef): ReadinessReason | null {
  const refused = claimantRefusal({ name: facts.queue, claimants: facts.claimants }, caller);
  return refused ? { code: "claimants", message: refused.message } : null;
}

const at = (d: Date | string) => parseTimestamp(d).toISOString();

/** Every reason `caller` cannot claim `taskId` now; null when there is no such task. */
export async function readTaskReadiness(db: Executor, clock: Clock, taskId: string, caller: ActorRef): Promise<Readiness | null> {
  const [facts] = await db.execute<Facts & Record<string, unknown>>(sql`
    SELECT t.status, t.queue, t.owner_id, o.name AS owner_name, t.lease_until,
           coalesce(t.lease_until <= ${clock.now()}, false) AS lapsed,
           t.lease_until + make_interval(secs => q.lock_delay_seconds) AS delay_until,
           coalesce(t.lease_until + make_interval(secs => q.lock_delay_seconds) > ${clock.now()}, false) AS delayed,
           t.not_before, coalesce(t.not_before > ${clock.now()}, false) AS waiting,
           t.needs_check OR (${statusIn(HELD)} AND t.side_effect_recorded) AS needs_check,
           t.blocked_by::text[] AS blocked_by, q.paused, q.archived_at, p.name AS paused_by, q.paused_at, q.breaker_reason, q.claimants
    FROM tasks t JOIN queues q ON q.name = t.queue
    LEFT JOIN actors o ON o.id = t.owner_id LEFT JOIN actors p ON p.id = q.paused_by
    WHERE t.id = ${taskId}::bigint`);
  if (!facts) return null;
  const reasons: ReadinessReason[] = [];
  const add = (code: ReadinessCode, message: string) => reasons.push({ code, message });
  const held = facts.status === "claimed" || facts.status === "started";

  if (facts.status === "awaiting_input") {
    // Parked, not lapsed (docs/questions.md): its owner keeps it while a person answers.
    add("status", `Task ${taskId} is awaiting_input: ${facts.owner_id === caller.id ? "you" : facts.owner_name} asked a person and keeps it until the answer`);
  } else if (!held && facts.status !== "queued") add("status", `Task ${taskId} is ${facts.status}: there is nothing to claim`);
  if (held && !facts.lapsed) {
    const by = facts.owner_id === caller.id ? "you" : facts.owner_name;
    add("held", `${facts.status === "started" ? "Started" : "Claimed"} by ${by}; the lease runs until ${at(facts.lease_until!)}`);
  }
  if (held && facts.lapsed && facts.delayed) {
    add("lock_delay", `The lease lapsed at ${at(facts.lease_until!)}; queue ${facts.queue}'s lock delay holds the task until ${at(facts.delay_until!)}`);
  }
  if (held && facts.lapsed && facts.breaker_reason !== null) {
    add("breaker_tripped", `The lease lapsed, but queue ${facts.queue}'s breaker is tripped (${facts.breaker_reason}); a supervisor must reset it`);
  }
  if (facts.archived_at && (facts.status === "queued" || (held && facts.lapsed))) {
    add("queue_archived", `Queue ${facts.queue} is archived (since ${at(facts.archived_at)}): it takes no new claims until a supervisor restores it`);
  }
  if (facts.paused) {
    add("queue_paused", `Queue ${facts.queue} is paused${facts.paused_by ? ` by ${facts.paused_by}` : ""}${facts.paused_at ? ` since ${at(facts.paused_at)}` : ""}`);
  }
  const claimants = claimantsReason(facts, caller);
  if (claimants) reasons.push(claimants);
  if (facts.status === "queued") {
    for (const dependency of await blockingDependencies(db, facts.blocked_by)) add("blocked", dependency);
    if (facts.waiting) add("not_before", `Not before ${at(facts.not_before!)}`);
  }
  if (facts.status === "queued" || (held && facts.lapsed)) {
    for (const c of await conflictingHoldings(db, clock, taskId)) {
      add("reserved", `#${c.taskId} "${c.title}"${c.owner ? ` (${c.owner})` : ""} holds ${c.resource}, which this task's reservations conflict with`);
    }
  }
  if (facts.status === "queued" || (held && facts.lapsed)) {
    const cap = await readMonthlyCap(db, clock, caller.id);
    if (cap && cap.spent >= cap.limit) {
      add("agent_budget", `You spent ${cap.spent} of your monthly cap of ${cap.limit} ${cap.unit} this month: claims hand you nothing until a supervisor raises the cap or the month turns`);
    }
  }
  if (facts.needs_check && facts.status !== "done" && facts.status !== "cancelled") {
    add("needs_check", "An earlier attempt began a side effect: a claim works, but starting needs confirmCheck");
  }

  const blocking = reasons.filter((r) => r.code !== "needs_check");
  const onlyTime = blocking.length > 0 && blocking.every((r) => r.code === "not_before" || r.code === "lock_delay");
  const when = blocking.some((r) => r.code === "lock_delay") ? facts.delay_until! : facts.not_before!;
  return { claimable: blocking.length === 0, reasons, claimableAt: onlyTime ? parseTimestamp(when) : null };
}

/** "Waiting for #4 (started by agent-2)", one line per dependency not done yet. */
async function blockingDependencies(db: Executor, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.execute<{ id: string; status: TaskStatus; title: string; owner: string | null }>(sql`
    SELECT d.id::text, d.status, d.title, o.name AS owner
    FROM tasks d LEFT JOIN actors o ON o.id = d.owner_id
    WHERE d.id = ANY(${idArray(ids.map((id) => BigInt(id)))}) ORDER BY d.id`);
  return rows.map((d) => {
    const state = d.owner && (d.status === "claimed" || d.status === "started") ? `${d.status} by ${d.owner}` : d.status;
    return `Waiting for #${d.id} (${state})`;
  });
}

/** A targeted claim that lost to readiness: queue_paused or not_ready, with the reasons; null otherwise. */
export async function explainUnready(db: Executor, clock: Clock, task: Task, caller: ActorRef): Promise<EngineError | null> {
  const readiness = await readTaskReadiness(db, clock, task.id, caller);
  if (!readiness) return null;
  const paused = readiness.reasons.find((r) => r.code === "queue_paused");
  if (paused) return { code: "queue_paused", message: `Task ${task.id} cannot be claimed: ${paused.message}`, task };
  const graph = readiness.reasons.filter((r) => r.code === "blocked" || r.code === "not_before" || r.code === "lock_delay" || r.code === "reserved" || r.code === "agent_budget");
  if (graph.length === 0) return null;
  return { code: "not_ready", message: `Task ${task.id} is not ready: ${graph.map((r) => r.message).join("; ")}`, task };
}

/** GET /tasks/{id}/readiness: for the caller, every reason it cannot claim the task now. */
export const taskReadiness = defineOperation({
  name: "taskReadiness",
  who: EVERYONE,
  input: readinessInput,
  async run(tx, input, { actor, clock }): Promise<Result<Readiness>> {
    const readiness = await readTaskReadiness(tx, clock, input.taskId, actor);
    return readiness ? ok(readiness) : notFound(input.taskId);
  },
});
