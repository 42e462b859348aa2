import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { notFound } from "../core/conflicts";
import { defineOperation } from "../core/engine";
import { appendEvents } from "../core/events";
import { editsAnyTask } from "../core/standing";
import { EDITABLE_FIELDS, editTaskInput, type EditTaskInput } from "../core/schemas";
import { loadTask, toTasks } from "../core/task-row";
import { EDITABLE } from "../core/machine";
import { statusIn, transition } from "../core/transition";
import { fail, ok, type ActorRef, type Result, type Task } from "../core/types";
import { queueForWork } from "../queues/queues";
import { capUnitRefusal } from "../budgets/cap";

type Field = (typeof EDITABLE_FIELDS)[number];
/** What an edited event records per field; `from` of a large payload is left out (docs/engine.md). */
export type Changes = Partial<Record<Field, { from?: unknown; to: unknown; fromOmitted?: true }>>;

// Only a task nobody holds and nobody has finished can be edited (the machine's EDITABLE).

/** Past this much JSON, the previous payload is not repeated in the event (an earlier event holds it). */
export const PAYLOAD_FROM_MAX_BYTES = 4096;

/**
 * Who may edit a task besides a supervisor (or the operator, editsAnyTask): whoever created it, or its last holder (the
 * actor of its latest `claimed` event) — the one who released or failed it and knows what
 * its description is missing. `t` is the task row.
 */
export const editorOf = (actorId: string): SQL => sql`(
  EXISTS (SELECT 1 FROM task_events e WHERE e.task_id = t.id AND e.type = 'created' AND e.actor_id = ${actorId}::uuid)
  OR ${actorId}::uuid = (SELECT e.actor_id FROM task_events e WHERE e.task_id = t.id AND e.type = 'claimed'
                         ORDER BY e.id DESC LIMIT 1))`;

export async function mayEdit(tx: Tx, taskId: string, actor: ActorRef): Promise<boolean> {
  const [row] = await tx.execute<{ may: boolean }>(sql`SELECT ${editorOf(actor.id)} AS may FROM tasks t WHERE t.id = ${taskId}::bigint`);
  return row?.may === true;
}

/** JSON with sorted keys: jsonb does not keep the order a client sent, so compare canonically; a time as its instant. */
const canonical = (value: unknown, field?: Field): string =>
  field === "notBefore" ? String(value ? new Date(value as string).getTime() : null) :
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v);

/** The fields the edit names whose value differs from the task's now. */
function changesOf(task: Task, input: EditTaskInput): Changes {
  const changes: Changes = {};
  for (const field of EDITABLE_FIELDS) {
    const to = input[field];
    if (to === undefined || canonical(to, field) === canonical(task[field], field)) continue;
    const big = field === "payload" && Buffer.byteLength(JSON.stringify(task.payload)) > PAYLOAD_FROM_MAX_BYTES;
    const at = field === "notBefore" && to ? new Date(to as string).toISOString() : to;
    changes[field] = big ? { to: at, fromOmitted: true } : { from: task[field], to: at };
  }
  return changes;
}

/** The fields that are a task's words: task_content's columns, not task_state's. */
const WORDS: readonly Field[] = ["title", "description", "payload"];

/**
 * A task's terms: the queue whose rules apply to its work (review, who may claim, pause, the
 * breaker, the retry delay), when it may be claimed, what it reserves, what it may spend. A
 * worker sets them for a task nobody has claimed yet, as a create could have; once it has
 * been worked they are a supervisor's, or its last holder could move a rejected task out of
 * a reviewed queue and finish it unreviewed, or lift the budget that parked it.
 */
const TERMS: readonly Field[] = ["queue", "notBefore", "reserves", "budget"];
const TERM_WORDS: Record<string, string> = { queue: "queue", notBefore: "notBefore", reserves: "reservations", budget: "budget" };

function refuseTerms(task: Task, terms: Field[]): Result<Task> {
  const named = terms.map((f) => TERM_WORDS[f]).join(", ");
  return fail({
    code: "forbidden",
    field: terms[0]!,
    message: `Task ${task.id} has been worked (attempt ${task.attempt}): only a supervisor may change its ${named}; its title, description, priority and payload are still yours to edit`,
    task,
  });
}

const COLUMNS: Record<Field, (value: unknown) => SQL> = {
  title: (v) => sql`title = ${v as string}`,
  description: (v) => sql`description = ${v as string}`,
  priority: (v) => sql`priority = ${v as number}`,
  payload: (v) => sql`payload = ${JSON.stringify(v)}::jsonb`,
  queue: (v) => sql`queue = ${v as string}`,
  notBefore: (v) => sql`not_before = ${v ? new Date(v as string).toISOString() : null}::timestamptz`,
  // None is NULL, not [], so the tasks_reserving index holds only tasks that reserve.
  reserves: (v) => sql`reserves = ${(v as unknown[]).length > 0 ? JSON.stringify(v) : null}::jsonb`,
  budget: (v) => {
    const b = v as { limit: number; unit: string } | null;
    return sql`budget_limit = ${b?.limit ?? null}::numeric, budget_unit = ${b?.unit ?? null}::text`;
  },
};

/**
 * A move to another queue: it must be open for new work (exists, not archived — the same
 * refusal a create there gets), and no task there may already hold this one's
 * idempotency key (the unique index is per queue).
 */
async function refuseMove(tx: Tx, task: Task, to: string): Promise<Result<Task> | null> {
  const open = await queueForWork(tx, to);
  if (!open.ok) return fail({ ...open.error, task });
  const [clash] = await tx.execute<{ id: string }>(sql`
    SELECT o.id::text AS id FROM tasks t JOIN tasks o ON o.queue = ${to} AND o.idempotency_key = t.idempotency_key
    WHERE t.id = ${task.id}::bigint AND t.idempotency_key IS NOT NULL`);
  if (clash) {
    return fail({ code: "invalid_request", field: "queue", message: `Task ${clash.id} in queue ${to} already has task ${task.id}'s idempotencyKey: it cannot move there`, task });
  }
  return null;
}

/** Why the guarded UPDATE changed nothing: most useful reason first. */
async function explain(tx: Tx, input: EditTaskInput, actor: ActorRef, anyone: boolean): Promise<Result<Task>> {
  const task = await loadTask(tx, input.taskId);
  if (!task) return notFound(input.taskId);
  if (!anyone && !(await mayEdit(tx, input.taskId, actor))) {
    return fail({ code: "forbidden", message: `Only whoever created task ${task.id}, its last holder or a supervisor may edit it`, task });
  }
  if (!EDITABLE.includes(task.status)) {
    return fail({
      code: "invalid_transition",
      message: `Task ${task.id} is ${task.status} (version ${task.version}): only a queued or escalated task can be edited`,
      task,
    });
  }
  return fail({
    code: "version_conflict",
    message: `Task ${task.id} is at version ${task.version}, not ${input.version}: it changed while you were editing`,
    task,
  });
}

/**
 * Edits a queued or escalated task: version + 1 and an `edited` event with each changed
 * field's {from, to}. An edit that changes nothing writes nothing and answers the task as
 * it is, whatever version it names — so a retry whose first answer was lost is a success.
 * Staff and agents edit a task they created or held last; a supervisor, any (the standing).
 * Its terms (TERMS) only a supervisor changes once the task has been claimed.
 */
export const editTask = defineOperation({
  name: "editTask",
  makes: ["edit"],
  input: editTaskInput,
  async run(tx, input, { actor, clock, standing }): Promise<Result<Task>> {
    const anyone = editsAnyTask(standing);
    // Locked first, so the comparison below and the guarded UPDATE see the same row.
    await tx.execute(sql`SELECT id FROM task_state WHERE id = ${input.taskId}::bigint FOR UPDATE`);
    const task = await loadTask(tx, input.taskId);
    if (!task) return notFound(input.taskId);
    const changes = changesOf(task, input);
    const fields = Object.keys(changes) as Field[];
    if (fields.length === 0) {
      const allowed = EDITABLE.includes(task.status) && (anyone || (await mayEdit(tx, input.taskId, actor)));
      return allowed ? ok(task) : explain(tx, input, actor, anyone);
    }
    const terms = fields.filter((f) => TERMS.includes(f));
    if (!anyone && terms.length > 0 && task.attempt > 0 && (await mayEdit(tx, input.taskId, actor))) return refuseTerms(task, terms);
    const budget = changes.budget?.to as { unit: string } | null | undefined;
    const offCap = anyone ? null : await capUnitRefusal(tx, clock, actor.id, budget?.unit);
    if (offCap) return fail({ ...offCap, task });
    if (changes.queue) {
      const refused = await refuseMove(tx, task, changes.queue.to as string);
      if (refused) return refused;
    }
    const stateFields = fields.filter((f) => !WORDS.includes(f));
    const set = sql.join([...stateFields.map((f) => COLUMNS[f](changes[f]!.to)), sql`version = t.version + 1`, sql`updated_at = ${clock.now()}`], sql`, `);
    const changed = await transition(
      tx,
      input.taskId,
      set,
      sql`${statusIn(EDITABLE)} AND t.version = ${input.version} ${anyone ? sql`` : sql`AND ${editorOf(actor.id)}`}`,
    );
    if (!changed) return explain(tx, input, actor, anyone);
    // The words live in task_content (migration 0027): written once the guarded UPDATE took.
    const words = fields.filter((f) => WORDS.includes(f));
    if (words.length > 0) {
      await tx.execute(sql`UPDATE task_content SET ${sql.join(words.map((f) => COLUMNS[f](changes[f]!.to)), sql`, `)} WHERE id = ${input.taskId}::bigint`);
    }
    const row = { ...changed.row, ...Object.fromEntries(words.map((f) => [f, changes[f]!.to])) };
    await appendEvents(tx, clock, [{
      taskId: row.id, queue: row.queue, type: "edited", actorId: actor.id,
      payload: { version: row.version, status: row.status, changes },
    }]);
    return ok((await toTasks(tx, [row], actor))[0]!);
  },
});
