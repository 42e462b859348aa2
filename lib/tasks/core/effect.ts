import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { EffectState } from "@/db/schema";
import { parseTimestamp } from "./task-row";
import type { ActorRef } from "./types";

// The effect object and its read. A task carries its open effects (`openEffects`), so the task
// row reads them here, in core; lib/tasks/effects/ holds the acts that write the ledger.

export type { EffectState };

/** The effect object of docs/contract.md#the-effect-ledger (Dates serialise to ISO 8601). */
export interface Effect {
  id: string;
  name: string;
  key: string | null;
  target: string | null;
  detail: unknown;
  state: EffectState;
  idempotencyKey: string;
  attempt: number;
  by: ActorRef;
  at: Date;
  resolvedBy: ActorRef | null;
  resolvedAt: Date | null;
  externalRef: string | null;
  note: string | null;
}

/** The columns of an effect with its actors' names, for `toEffect` (e is task_effects). */
export const EFFECT_COLUMNS = sql.raw(`e.id::text AS id, e.task_id::text AS task_id, e.name, e.key, e.target, e.detail, e.state, e.idempotency_key,
  e.attempt, e.at, e.by_id, b.name AS by_name, b.kind AS by_kind, e.resolved_at, e.resolved_by_id, r.name AS resolved_by_name,
  r.kind AS resolved_by_kind, e.external_ref, e.note, e.via_side_effect`);
export const EFFECT_JOINS = sql.raw(`JOIN actors b ON b.id = e.by_id LEFT JOIN actors r ON r.id = e.resolved_by_id`);

export function toEffect(raw: Record<string, unknown>): Effect {
  const actor = (id: unknown, name: unknown, kind: unknown): ActorRef => ({ id: String(id), name: String(name), kind: kind as ActorRef["kind"] });
  return {
    id: String(raw.id), name: String(raw.name), key: (raw.key as string | null) ?? null, target: (raw.target as string | null) ?? null,
    detail: raw.detail ?? null, state: raw.state as EffectState, idempotencyKey: String(raw.idempotency_key), attempt: Number(raw.attempt),
    by: actor(raw.by_id, raw.by_name, raw.by_kind), at: parseTimestamp(raw.at as string),
    resolvedBy: raw.resolved_by_id ? actor(raw.resolved_by_id, raw.resolved_by_name, raw.resolved_by_kind) : null,
    resolvedAt: raw.resolved_at ? parseTimestamp(raw.resolved_at as string) : null,
    externalRef: (raw.external_ref as string | null) ?? null, note: (raw.note as string | null) ?? null,
  };
}

/** A task's effects, oldest first (`open`: only intended and unknown ones). */
export async function listEffects(db: Executor, taskIds: string[], open = false): Promise<Map<string, Effect[]>> {
  const byTask = new Map<string, Effect[]>(taskIds.map((id) => [id, []]));
  if (taskIds.length === 0) return byTask;
  const rows = await db.execute<Record<string, unknown>>(sql`
    SELECT ${EFFECT_COLUMNS} FROM task_effects e ${EFFECT_JOINS}
    WHERE e.task_id = ANY(${`{${taskIds.join(",")}}`}::bigint[]) ${open ? sql`AND e.state IN ('intended', 'unknown')` : sql``}
    ORDER BY e.task_id, e.id`);
  for (const raw of rows) byTask.get(String(raw.task_id))?.push(toEffect(raw));
  return byTask;
}
