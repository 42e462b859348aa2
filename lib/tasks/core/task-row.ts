import { inArray, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { actors, type TaskRow } from "@/db/schema";
import type { ActorRef, Handoff, Submission, Task } from "./types";
import { listEffects } from "./effect";
import { withCheckpoints } from "./checkpoint";
import { executePrepared } from "@/db/hot-path";

/** PostgreSQL's text form of timestamptz ("2026-11-29 20:00:00.123456+00") as a Date. */
export function parseTimestamp(value: string | Date): Date {
  if (value instanceof Date) return value;
  const match = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d)(?::?(\d\d))?$/.exec(value);
  if (!match) throw new Error(`unexpected timestamp format: ${value}`);
  const [, date, time, fraction = "", hours, minutes = "00"] = match;
  return new Date(`${date}T${time}${fraction.slice(0, 4)}${hours}:${minutes}`);
}

/** A bigint[] from a raw row: postgres.js gives an array, or the text form "{4,7}". */
function parseIdArray(value: unknown): bigint[] {
  if (Array.isArray(value)) return value.map((v) => BigInt(v as string));
  if (typeof value !== "string" || value === "{}" || value === "") return [];
  return value.replace(/[{}]/g, "").split(",").map((v) => BigInt(v));
}

const nullableTimestamp = (value: string | Date | null) => (value === null ? null : parseTimestamp(value));

/**
 * A write of task_state that RETURNs `t.*` (and more), answered with the task's words as well:
 * the row rawToTaskRow maps. The loop writes only the state row (migration 0027); its words are
 * read back by id, after the write, from task_content, which the write neither changes nor locks.
 */
export const withContent = (write: SQL) => sql`
  WITH written AS (${write})
  SELECT written.*, ${CONTENT_COLUMNS} FROM written ${contentOf("written")}`;

/** The words' columns, as read by `contentOf` (alias c). */
export const CONTENT_COLUMNS = sql.raw(`c.title, c.description, c.payload`);

/**
 * The words of the rows a CTE `cte` wrote, joined by id: for a statement whose write sits among
 * other data-modifying CTEs (the claim's, the completion's set rows), which withContent cannot
 * wrap (PostgreSQL takes data-modifying CTEs at the top level only).
 */
export const contentOf = (cte: string) => sql.raw(`LEFT JOIN task_content c ON c.id = ${cte}.id`);

/** A raw `RETURNING tasks.*` row (snake_case, text timestamps) as a typed TaskRow. */
export function rawToTaskRow(raw: Record<string, unknown>): TaskRow {
  return {
    id: BigInt(raw.id as string),
    queue: raw.queue as string,
    title: raw.title as string,
    description: raw.description as string,
    payload: raw.payload,
    priority: Number(raw.priority),
    status: raw.status as TaskRow["status"],
    ownerId: (raw.owner_id as string | null) ?? null,
    leaseUntil: nullableTimestamp(raw.lease_until as string | null),
    leaseSeconds: raw.lease_seconds === null ? null : Number(raw.lease_seconds),
    version: Number(raw.version),
    attempt: Number(raw.attempt),
    failureCount: Number(raw.failure_count),
    needsCheck: Boolean(raw.needs_check),
    sideEffectRecorded: Boolean(raw.side_effect_recorded),
    intendedEffects: Number(raw.intended_effects),
    unknownEffects: Number(raw.unknown_effects),
    dependsOn: parseIdArray(raw.depends_on),
    blockedBy: parseIdArray(raw.blocked_by),
    notBefore: nullableTimestamp((raw.not_before as string | null) ?? null),
    idempotencyKey: (raw.idempotency_key as string | null) ?? null,
    claimedAt: nullableTimestamp((raw.claimed_at as string | null) ?? null),
    attemptLimited: Boolean(raw.attempt_limited),
    progress: raw.progress ?? null,
    progressAt: nullableTimestamp((raw.progress_at as string | null) ?? null),
    handoff: raw.handoff ?? null,
    handoffAt: nullableTimestamp((raw.handoff_at as string | null) ?? null),
    reserves: (raw.reserves as TaskRow["reserves"]) ?? null,
    submission: raw.submission ?? null,
    budgetLimit: raw.budget_limit === null || raw.budget_limit === undefined ? null : Number(raw.budget_limit),
    budgetUnit: (raw.budget_unit as string | null) ?? null,
    spent: Number(raw.spent ?? 0),
    checkpointId: raw.checkpoint_id === null || raw.checkpoint_id === undefined ? null : BigInt(raw.checkpoint_id as string),
    createdAt: parseTimestamp(raw.created_at as string),
    updatedAt: parseTimestamp(raw.updated_at as string),
  };
}

export function toTask(row: TaskRow, owner: ActorRef | null): Task {
  return {
    id: row.id.toString(),
    queue: row.queue,
    title: row.title,
    description: row.description,
    payload: row.payload,
    priority: row.priority,
    status: row.status,
    owner: row.ownerId ? (owner ?? { id: row.ownerId, name: "unknown", kind: "user" }) : null,
    leaseUntil: row.leaseUntil,
    version: row.version,
    attempt: row.attempt,
    fence: null,
    failureCount: row.failureCount,
    needsCheck: row.needsCheck,
    dependsOn: row.dependsOn.map(String),
    blockedBy: row.blockedBy.map(String),
    notBefore: row.notBefore,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    handoff: row.handoff && row.handoffAt ? { ...(row.handoff as Omit<Handoff, "at">), at: row.handoffAt } : null,
    progress: row.progressAt ? { value: row.progress, at: row.progressAt } : null,
    checkpoint: null,
    openEffects: [],
    reserves: row.reserves ?? [],
    submission: toSubmission(row.submission),
    budget: row.budgetLimit !== null && row.budgetUnit !== null ? { limit: Number(row.budgetLimit), unit: row.budgetUnit } : null,
    spent: Number(row.spent),
  };
}

/** The row's stored submission (`at` as ISO text) as the task object's. */
function toSubmission(stored: unknown): Submission | null {
  if (!stored || typeof stored !== "object") return null;
  const s = stored as Omit<Submission, "at"> & { at: string };
  return { result: s.result ?? null, digest: s.digest, by: s.by, attempt: s.attempt, at: new Date(s.at) };
}

/** Maps rows whose owner is usually the caller, looking up any other owner once. */
export async function toTasks(tx: Executor, rows: TaskRow[], caller: ActorRef): Promise<Task[]> {
  const others = [...new Set(rows.map((r) => r.ownerId).filter((id): id is string => !!id && id !== caller.id))];
  const known = new Map<string, ActorRef>([[caller.id, caller]]);
  if (others.length > 0) {
    const found = await tx
      .select({ id: actors.id, name: actors.name, kind: actors.kind })
      .from(actors)
      .where(inArray(actors.id, others));
    for (const actor of found) known.set(actor.id, actor);
  }
  return withAttemptReads(tx, rows, rows.map((row) => toTask(row, row.ownerId ? (known.get(row.ownerId) ?? null) : null)));
}

/**
 * `tasks` (made from `rows`, in order) with what attempts left beside the row: their open effects
 * and latest checkpoints, each read only for the rows that say they have some.
 */
export async function withAttemptReads(tx: Executor, rows: TaskRow[], tasks: Task[]): Promise<Task[]> {
  return withCheckpoints(tx, rows, await withOpenEffects(tx, rows, tasks));
}

/** A row that may have open effects: only these cost a read of the ledger (a task without effects, none). */
const mayHaveOpenEffects = (row: TaskRow) => row.sideEffectRecorded || row.needsCheck || row.intendedEffects > 0 || row.unknownEffects > 0;

/** `tasks` (made from `rows`, in order) with their open effects, read once for the rows that may have any. */
async function withOpenEffects(tx: Executor, rows: TaskRow[], tasks: Task[]): Promise<Task[]> {
  const ids = rows.filter(mayHaveOpenEffects).map((row) => row.id.toString());
  if (ids.length === 0) return tasks;
  const open = await listEffects(tx, ids, true);
  return tasks.map((task) => (open.has(task.id) ? { ...task, openEffects: open.get(task.id)! } : task));
}

/**
 * The task as it is now, with its owner; null when there is no such task. One prepared
 * statement, its row mapped as the completion's is: drizzle's select of the whole row built,
 * sent unnamed and mapped the query anew on every call, ~0.5 ms of CPU (CHANGELOG.md).
 */
export async function loadTask(tx: Executor, id: string | bigint): Promise<Task | null> {
  const key = BigInt(id);
  const [raw] = await executePrepared<Record<string, unknown>>(tx, sql`
    SELECT t.*, a.id AS owner_actor_id, a.name AS owner_name, a.kind AS owner_kind
    FROM tasks t LEFT JOIN actors a ON a.id = t.owner_id
    WHERE t.id = ${key.toString()}::bigint`);
  if (!raw) return null;
  const row = rawToTaskRow(raw);
  const owner = raw.owner_actor_id ? { id: raw.owner_actor_id as string, name: raw.owner_name as string, kind: raw.owner_kind as ActorRef["kind"] } : null;
  return (await withAttemptReads(tx, [row], [toTask(row, owner)]))[0]!;
}
