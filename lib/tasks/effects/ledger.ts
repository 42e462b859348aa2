import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { OpenEffectState } from "@/db/schema";
import type { Clock } from "../core/clock";
import { SYSTEM_ACTOR_ID, type NewEvent } from "../core/events";
import type { Effect } from "../core/effect";
import type { ActorRef } from "../core/types";

// The effect ledger's rows and the statements the engine's transitions add for them
// (docs/effects.md). Each runs only when the task row says there is something to do
// (side_effect_recorded, the counts), so a task without effects costs the loop nothing here.

/**
 * The string an agent sends downstream: stable for the task and key (or name) across every
 * attempt, printable ASCII whatever the key holds, and different for every (task, key).
 */
export function idempotencyKeyOf(taskId: string, keyOrName: string): string {
  return `cbe_${taskId}_${createHash("sha256").update(`${taskId}\u0000${keyOrName}`).digest("base64url").slice(0, 32)}`;
}

/** The fact of one effect (effect_intended, effect_resolved, effect_unknown). */
export function effectEvent(
  type: "effect_intended" | "effect_resolved" | "effect_unknown",
  task: { id: bigint | string; queue: string; version: number; status: string },
  effect: Pick<Effect, "id" | "name" | "idempotencyKey" | "attempt" | "state" | "externalRef" | "note" | "target">,
  actorId: string,
  from?: OpenEffectState,
): NewEvent {
  return {
    taskId: BigInt(task.id), queue: task.queue, type, actorId,
    payload: {
      version: task.version, status: task.status as never, effectId: effect.id, name: effect.name, idempotencyKey: effect.idempotencyKey,
      attempt: effect.attempt, state: effect.state, ...(from ? { from } : {}),
      ...(type === "effect_resolved" ? { externalRef: effect.externalRef, note: effect.note } : {}),
      ...(type === "effect_intended" ? { target: effect.target } : {}),
    },
  };
}

interface Ended { id: bigint; queue: string; version: number; status: string }

/**
 * An attempt ended (lapse, release, fail, force-release) with its intents open: they become
 * unknown, in the ending transaction. The row's counts already moved in the ending UPDATE
 * (endAttempt); this writes the effects' rows and their facts (effect_unknown, by the system;
 * a v1 side effect's fact is the ending event itself). Call only for tasks whose ending
 * attempt recorded an effect (side_effect_recorded before the UPDATE).
 */
export async function effectsLeftUnknown(db: Executor, ended: Ended[]): Promise<NewEvent[]> {
  if (ended.length === 0) return [];
  const rows = await db.execute<Record<string, unknown>>(sql`
    UPDATE task_effects e SET state = 'unknown'
    WHERE e.task_id = ANY(${`{${ended.map((t) => t.id).join(",")}}`}::bigint[]) AND e.state = 'intended'
    RETURNING e.id::text AS id, e.task_id::text AS task_id, e.name, e.idempotency_key, e.attempt, e.via_side_effect, e.target`);
  const tasks = new Map(ended.map((t) => [t.id.toString(), t]));
  return rows.filter((raw) => !raw.via_side_effect).map((raw) => effectEvent("effect_unknown", tasks.get(String(raw.task_id))!, {
    id: String(raw.id), name: String(raw.name), idempotencyKey: String(raw.idempotency_key), attempt: Number(raw.attempt),
    state: "unknown", externalRef: null, note: null, target: (raw.target as string | null) ?? null,
  }, SYSTEM_ACTOR_ID));
}

/**
 * A completion marks the completing attempt's own intents applied (docs/contract.md#the-effect-ledger); their facts are
 * effect_resolved by the completer, written before `completed`. Call only for tasks whose
 * attempt recorded an effect.
 */
export async function effectsAppliedByCompletion(db: Executor, clock: Clock, actor: ActorRef, done: Ended[]): Promise<NewEvent[]> {
  if (done.length === 0) return [];
  const rows = await db.execute<Record<string, unknown>>(sql`
    UPDATE task_effects e SET state = 'applied', resolved_at = ${clock.now()}, resolved_by_id = ${actor.id}::uuid,
           note = coalesce(e.note, 'applied: the attempt that recorded it completed the task')
    FROM tasks t
    WHERE t.id = e.task_id AND e.task_id = ANY(${`{${done.map((t) => t.id).join(",")}}`}::bigint[])
      AND e.state = 'intended' AND e.attempt = t.attempt
    RETURNING e.id::text AS id, e.task_id::text AS task_id, e.name, e.idempotency_key, e.attempt, e.via_side_effect, e.note`);
  const tasks = new Map(done.map((t) => [t.id.toString(), t]));
  return rows.filter((raw) => !raw.via_side_effect).map((raw) => effectEvent("effect_resolved", tasks.get(String(raw.task_id))!, {
    id: String(raw.id), name: String(raw.name), idempotencyKey: String(raw.idempotency_key), attempt: Number(raw.attempt),
    state: "applied", externalRef: null, note: (raw.note as string | null) ?? null, target: null,
  }, actor.id, "intended"));
}

/**
 * v1's confirmCheck: the next holder says it checked what the lapsed attempt began. The
 * unknown effects v1's side-effects recorded (which v1 cannot resolve otherwise) are settled
 * applied by that confirmation; the fact is check_confirmed. Effects of the ledger's own API
 * stay unknown: they are resolved one by one.
 */
export async function sideEffectsConfirmed(db: Executor, clock: Clock, actor: ActorRef, taskId: string): Promise<void> {
  await db.execute(sql`
    UPDATE task_effects SET state = 'applied', resolved_at = ${clock.now()}, resolved_by_id = ${actor.id}::uuid,
           note = 'confirmed by the next holder''s check (confirmCheck)'
    WHERE task_id = ${taskId}::bigint AND state = 'unknown' AND via_side_effect`);
}
