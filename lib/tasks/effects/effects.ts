import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { RESOLVED_EFFECT_STATES, type EffectState, type OpenEffectState } from "@/db/schema";
import type { Clock } from "../core/clock";
import { explainMiss, notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents, type NewEvent } from "../core/events";
import { editsAnyTask, EVERYONE, WORKERS, type Standing } from "../core/standing";
import { loadTask, toTasks } from "../core/task-row";
import { ownerTransition, statusIn, statusNotIn, transition } from "../core/transition";
import { FINISHED, HELD } from "../core/machine";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import { EFFECT_COLUMNS, EFFECT_JOINS, listEffects, toEffect, type Effect } from "../core/effect";
import { progressMade } from "../holding/no-progress";
import { noUnread, refuseUnread } from "../holding/unread";
import { effectEvent, idempotencyKeyOf } from "./ledger";
import { listEffectsInput, recordEffectInput, resolveEffectInput, type RecordEffectInput, type ResolveEffectInput } from "./schemas";

// The effect ledger's operations (docs/contract.md#the-effect-ledger, docs/effects.md): record an intent before an
// external act, resolve it after; list a task's effects. The ledger's own moves are
// `resolveEffect` below; what an ending attempt or a completion does to them is
// in ledger.ts, called from those transitions.

const recording = ownerTransition("sideEffect");

export interface Recorded {
  effect: Effect;
  task: Task;
  /** False when the same key was recorded before on this task: the existing effect, unchanged. */
  created: boolean;
}

/**
 * Records an effect for the attempt holding the task: a guarded write of the task row (the
 * owner, a valid lease, the version named; `started` for the ledger's API), which also
 * serialises every record of the task, then the effect's row unless its key is known.
 * v1's side-effects records through here too (`v1`: a held task, its own event, no count).
 */
export async function recordInLedger(
  tx: Tx, clock: Clock, actor: ActorRef, input: RecordEffectInput, v1?: { description: string },
): Promise<Result<Recorded>> {
  const now = clock.now();
  const keyOrName = input.key ?? input.name;
  const idempotencyKey = idempotencyKeyOf(input.taskId, keyOrName);
  const known = sql`EXISTS (SELECT 1 FROM task_effects WHERE task_id = t.id AND idempotency_key = ${idempotencyKey})`;
  const changed = await transition(
    tx,
    input.taskId,
    v1
      ? sql`side_effect_recorded = true, updated_at = ${now}, ${progressMade}`
      : sql`side_effect_recorded = true, intended_effects = t.intended_effects + CASE WHEN ${known} THEN 0 ELSE 1 END, updated_at = ${now}, ${progressMade}`,
    // A new intent waits for the holder to read others' comments; a retry of a known one does not.
    recording.guard(actor, input.version, now, v1 ? noUnread : sql`t.status = 'started' AND (${known} OR ${noUnread})`),
  );
  if (!changed) {
    const unread = await refuseUnread(tx, input, actor, "record an effect", v1 ? HELD : ["started"]);
    if (unread) return unread;
    const task = await loadTask(tx, input.taskId);
    if (!v1 && task?.status === "claimed" && task.owner?.id === actor.id) {
      return fail({ code: "invalid_transition", message: `Task ${task.id} is claimed, not started: start it before recording an effect`, task });
    }
    const missed = await explainMiss(tx, clock, recording.expected(input, actor));
    if (v1) return missed as Result<never>;
    return missed.ok ? fail({ code: "invalid_transition", message: `Task ${input.taskId} cannot take an effect now`, task: missed.value }) : missed;
  }
  const { row } = changed;
  const [inserted] = await tx.execute<{ id: string }>(sql`
    INSERT INTO task_effects (task_id, name, key, idempotency_key, target, detail, attempt, by_id, at, via_side_effect)
    VALUES (${input.taskId}::bigint, ${input.name}, ${input.key ?? null}, ${idempotencyKey}, ${input.target ?? null},
            ${input.detail === undefined ? null : JSON.stringify(input.detail)}::jsonb, ${row.attempt}, ${actor.id}::uuid, ${now}, ${v1 !== undefined})
    ON CONFLICT (task_id, idempotency_key) DO NOTHING
    RETURNING id::text`);
  const [raw] = await tx.execute<Record<string, unknown>>(sql`
    SELECT ${EFFECT_COLUMNS} FROM task_effects e ${EFFECT_JOINS}
    WHERE e.task_id = ${input.taskId}::bigint AND e.idempotency_key = ${idempotencyKey}`);
  const effect = toEffect(raw!);
  const events: NewEvent[] = v1
    ? [{ taskId: row.id, queue: row.queue, type: "side_effect", actorId: actor.id, payload: { version: row.version, status: row.status, description: v1.description } }]
    : inserted ? [effectEvent("effect_intended", row, effect, actor.id)] : [];
  await appendEvents(tx, clock, events);
  return ok({ effect, task: (await toTasks(tx, [row], actor))[0]!, created: inserted !== undefined });
}

/** POST /tasks/{id}/effects: the owner of a started task records an intent before acting. */
export const recordEffect = defineOperation({
  name: "recordEffect",
  who: WORKERS,
  input: recordEffectInput,
  run: (tx, input, { actor, clock }) => recordInLedger(tx, clock, actor, input),
});

const canResolveUnknown = (standing: Standing | undefined) => editsAnyTask(standing);

/**
 * Who may resolve an `unknown` effect of the task `t` (a task_state or tasks row) at `now`:
 * whoever holds it now with a live lease, or a supervisor while it is not done or cancelled.
 * resolveEffect's guard and the attention read (lib/attention) both say it with this.
 */
export const mayResolveUnknown = (actor: ActorRef, standing: Standing | undefined, now: SQL) =>
  sql`((${statusIn(HELD)} AND t.owner_id = ${actor.id}::uuid AND t.lease_until > ${now})
    OR (${canResolveUnknown(standing)}::boolean AND ${statusNotIn(FINISHED)}))`;

/**
 * Resolves an effect: `intended` → applied | failed by the attempt that recorded it (its
 * holder, lease valid); `unknown` → applied | failed by whoever holds the task now, or a
 * supervisor. One guarded UPDATE of the effect under the task's row lock; the task's count
 * moves with it. A refusal writes nothing.
 */
export const resolveEffect = defineOperation({
  name: "resolveEffect",
  who: WORKERS,
  input: resolveEffectInput,
  async run(tx, input, { actor, clock, standing }): Promise<Result<{ effect: Effect; task: Task }>> {
    const now = clock.now();
    const holder = sql`${statusIn(HELD)} AND t.owner_id = ${actor.id}::uuid AND t.lease_until > ${now}`;
    const [raw] = await tx.execute<Record<string, unknown>>(sql`
      WITH t AS MATERIALIZED (SELECT id, status, owner_id, version, attempt, lease_until FROM task_state WHERE id = ${input.taskId}::bigint FOR UPDATE),
      old AS MATERIALIZED (SELECT id, state, via_side_effect FROM task_effects WHERE id = ${input.effectId}::bigint AND task_id = ${input.taskId}::bigint FOR UPDATE)
      UPDATE task_effects e SET state = ${input.state}::effect_state, resolved_at = ${now}, resolved_by_id = ${actor.id}::uuid,
             external_ref = ${input.externalRef ?? null}, note = ${input.note ?? null}
      FROM t, old
      WHERE e.id = old.id AND t.version = ${input.version} AND (
        (old.state = 'intended' AND e.attempt = t.attempt AND ${holder})
        OR (old.state = 'unknown' AND ${mayResolveUnknown(actor, standing, now)}))
      RETURNING e.id, old.state AS previous_state, old.via_side_effect`);
    if (!raw) return explainUnresolved(tx, input, actor);
    const from = raw.previous_state as OpenEffectState;
    // v1's side effects are not counted on the row (docs/effects.md), so their resolution moves no count.
    const count = raw.via_side_effect ? sql`` : from === "intended" ? sql`, intended_effects = intended_effects - 1` : sql`, unknown_effects = unknown_effects - 1`;
    // The check a lapse owes (needs_check) is of what the ended attempt began: once its last
    // unknown effect — ledger or v1 — is resolved, that check is done, and Start must not ask
    // for it again (contract v1.3: one check, not two). The row is locked above (t, FOR UPDATE).
    const [cleared] = await tx.execute<{ checked: boolean }>(sql`
      WITH before AS (SELECT needs_check FROM task_state WHERE id = ${input.taskId}::bigint)
      UPDATE task_state SET updated_at = ${now} ${count},
        needs_check = task_state.needs_check AND (${from !== "unknown"}::boolean
          OR EXISTS (SELECT 1 FROM task_effects x WHERE x.task_id = task_state.id AND x.state = 'unknown'))
      FROM before WHERE task_state.id = ${input.taskId}::bigint
      RETURNING before.needs_check AND NOT task_state.needs_check AS checked`);
    const task = (await loadTask(tx, input.taskId))!;
    const effect = (await listEffects(tx, [input.taskId])).get(input.taskId)!.find((e) => e.id === input.effectId)!;
    const event = effectEvent("effect_resolved", task, effect, actor.id, from);
    if (raw.via_side_effect && event.type === "effect_resolved") event.payload.sideEffect = true;
    if (cleared?.checked && event.type === "effect_resolved") event.payload.checked = true;
    await appendEvents(tx, clock, [event]);
    return ok({ effect, task });
  },
});

async function explainUnresolved(tx: Tx, input: ResolveEffectInput, actor: ActorRef): Promise<Result<never>> {
  const task = await loadTask(tx, input.taskId);
  if (!task) return notFound(input.taskId);
  const effect = (await listEffects(tx, [input.taskId])).get(input.taskId)!.find((e) => e.id === input.effectId);
  if (!effect) return fail({ code: "not_found", message: `Task ${input.taskId} has no effect ${input.effectId}` });
  const refuse = (code: "invalid_transition" | "version_conflict" | "not_owner" | "lease_expired", message: string) => fail({ code, message, task });
  if ((RESOLVED_EFFECT_STATES as readonly EffectState[]).includes(effect.state)) {
    return refuse("invalid_transition", `Effect ${effect.id} (${effect.name}) is already ${effect.state}: a resolved effect stays as it is`);
  }
  if (task.version !== input.version) return refuse("version_conflict", `Task ${task.id} is at version ${task.version}, not ${input.version}`);
  const held = task.status === "claimed" || task.status === "started";
  if (!held || task.owner?.id !== actor.id) {
    const by = held ? `held by ${task.owner?.name}` : task.status;
    return refuse("not_owner", `Task ${task.id} is ${by}: only its holder${effect.state === "unknown" ? " or a supervisor" : ""} may resolve effect ${effect.id}`);
  }
  if (effect.state === "intended" && effect.attempt !== task.attempt) {
    return refuse("not_owner", `Effect ${effect.id} belongs to attempt ${effect.attempt}, not yours (${task.attempt})`);
  }
  return refuse("lease_expired", `Your lease on task ${task.id} lapsed at ${task.leaseUntil?.toISOString()}: it may already be someone else's`);
}

/** GET /tasks/{id}/effects: the task's whole ledger, oldest first. */
export const taskEffectsList = defineOperation({
  name: "listEffects",
  who: EVERYONE,
  input: listEffectsInput,
  async run(tx, input): Promise<Result<Effect[]>> {
    if (!(await loadTask(tx, input.taskId))) return notFound(input.taskId);
    return ok((await listEffects(tx, [input.taskId])).get(input.taskId)!);
  },
});
