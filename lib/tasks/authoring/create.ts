import { and, asc, eq, sql } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { taskEvents, tasks } from "@/db/schema";
import { defineOperation, type OperationContext } from "../core/engine";
import { typedEvent } from "../core/event-payloads";
import { appendEvents } from "../core/events";
import { idArray, lockDependencies, normalizeIds } from "./graph";
import { DEFAULT_QUEUE, queueForWork } from "../queues/queues";
import { createTaskInput, type CreateTaskInput } from "../core/schemas";
import { loadTask, rawToTaskRow, toTask } from "../core/task-row";
import { fail, ok, type Result, type Task } from "../core/types";
import { capUnitRefusal } from "../budgets/cap";

export interface Created {
  task: Task;
  /** False when an idempotencyKey found the task an earlier, identical create made. */
  created: boolean;
}

/** What a create asked for, as its created event records it: the fields an idempotent retry must repeat. */
function requested(input: CreateTaskInput) {
  return {
    title: input.title,
    description: input.description ?? "",
    priority: input.priority ?? 0,
    payload: input.payload ?? {},
    dependsOn: normalizeIds(input.dependsOn ?? []).map(String),
    notBefore: input.notBefore ? new Date(input.notBefore).toISOString() : null,
    // Only when it reserves anything: the created event of a task without stays as it was.
    reserves: input.reserves && input.reserves.length > 0 ? input.reserves : undefined,
    budget: input.budget,
  };
}

/**
 * A new task, queued at version 1 (blocked while a dependency is not done; not claimable
 * before notBefore). With an idempotencyKey, the unique index (queue, idempotency_key)
 * decides: a concurrent identical create waits for the first to commit, then finds its task.
 * The key is the creator's own (stored as `<creator's actor id>:<key>`, and so in the created
 * event, which the fold replays): another creator's same key is another task, so a squatter
 * cannot pre-create "your" task (issue 25).
 */
async function createOnce(tx: Tx, input: CreateTaskInput, { actor, clock }: OperationContext): Promise<Result<Created>> {
  const queue = input.queue ?? DEFAULT_QUEUE;
  const open = await queueForWork(tx, queue);
  if (!open.ok) return open;
  const offCap = await capUnitRefusal(tx, clock, actor.id, input.budget?.unit);
  if (offCap) return fail(offCap);
  const fields = requested(input);
  const scopedKey = input.idempotencyKey === undefined ? null : scopeKey(actor.id, input.idempotencyKey);
  const dependencies = await lockDependencies(tx, normalizeIds(input.dependsOn ?? []));
  if (!dependencies.ok) return dependencies;
  const now = clock.now();
  const dependsOn = dependencies.value.map((d) => d.id);
  const blockedBy = dependencies.value.filter((d) => d.status !== "done").map((d) => d.id);
  // The state row and the words in one statement (migration 0027): the words only when the
  // state row was made, so a key that found an earlier task writes nothing.
  const [raw] = await tx.execute<Record<string, unknown>>(sql`
    WITH made AS (
      INSERT INTO task_state (queue, priority, depends_on, blocked_by, not_before, reserves,
                              budget_limit, budget_unit, idempotency_key, created_at, updated_at)
      VALUES (${queue}, ${fields.priority}, ${idArray(dependsOn)}, ${idArray(blockedBy)},
              ${fields.notBefore}::timestamptz, ${fields.reserves ? JSON.stringify(fields.reserves) : null}::jsonb,
              ${fields.budget?.limit ?? null}::numeric, ${fields.budget?.unit ?? null}::text, ${scopedKey}::text, ${now}, ${now})
      ON CONFLICT (queue, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
      RETURNING *
    ), words AS (
      INSERT INTO task_content (id, title, description, payload)
      SELECT id, ${fields.title}, ${fields.description}, ${JSON.stringify(fields.payload)}::jsonb FROM made
      RETURNING title, description, payload
    )
    SELECT made.*, words.* FROM made, words`);
  const row = raw ? rawToTaskRow(raw) : undefined;
  if (!row) return findEarlier(tx, queue, scopedKey!, input.idempotencyKey!, fields);
  await appendEvents(tx, clock, [{
    taskId: row.id, queue, type: "created", actorId: actor.id,
    payload: {
      version: row.version, status: row.status, ...fields,
      ...(scopedKey !== null ? { idempotencyKey: scopedKey } : {}),
    },
  }]);
  return ok({ task: toTask(row, null), created: true });
}

/** The task an earlier create with this key made: the same when the fields match, else a conflict. */
/** An idempotency key as stored: scoped by whoever creates with it. */
const scopeKey = (actorId: string, key: string) => `${actorId}:${key}`;

async function findEarlier(tx: Tx, queue: string, scoped: string, key: string, fields: ReturnType<typeof requested>): Promise<Result<Created>> {
  const [found] = await tx
    .select({ id: tasks.id, type: taskEvents.type, payload: taskEvents.payload })
    .from(tasks)
    .innerJoin(taskEvents, and(eq(taskEvents.taskId, tasks.id), eq(taskEvents.type, "created")))
    .where(and(eq(tasks.queue, queue), eq(tasks.idempotencyKey, scoped)))
    .orderBy(asc(taskEvents.id))
    .limit(1);
  const task = found ? await loadTask(tx, found.id) : null;
  const created = found && typedEvent(found);
  if (!created || !task || created.type !== "created") throw new Error(`idempotency key ${key} in ${queue} conflicted, but no task holds it`);
  const earlier = created.payload;
  const differ = (Object.keys(fields) as (keyof typeof fields)[])
    .filter((k) => canonical(fields[k]) !== canonical(earlier[k] ?? (k === "dependsOn" ? [] : k === "notBefore" ? null : undefined)));
  if (differ.length === 0) return ok({ task, created: false });
  return fail({
    code: "idempotency_conflict", field: "idempotencyKey",
    message: `idempotencyKey "${key}" already made task ${task.id} in queue ${queue} with a different ${differ.join(", ")}`,
    task,
  });
}

/** JSON with object keys sorted: jsonb does not keep the key order a client sent. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v);
}

/** Create a task, or (same idempotencyKey, same fields) find the one an earlier create made. */
export const createTaskOnce = defineOperation({
  name: "createTask",
  makes: ["create"],
  input: createTaskInput,
  run: (tx, input, ctx) => createOnce(tx, input, ctx),
});

/** A new task, queued at version 1, in a queue that exists and is not archived. */
export const createTask = defineOperation({
  name: "createTask",
  makes: ["create"],
  input: createTaskInput,
  async run(tx, input, ctx) {
    const result = await createOnce(tx, input, ctx);
    return result.ok ? ok(result.value.task) : result;
  },
});
