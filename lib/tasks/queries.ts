import { and, asc, desc, eq, gt, isNull, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "@/db/client";
import { actors, queues, taskEvents, tasks, taskStatus } from "@/db/schema";
import { queueName, taskId } from "./schemas";
import { toTask } from "./task-row";
import type { ActorRef, Task } from "./types";

const limit = z.coerce.number().int("must be a whole number").min(1).max(100);

/**
 * How a page of tasks is ordered. `id` (the default) is oldest first; `newest` is the
 * reverse; `priority` is claim order (priority DESC, created_at, id) — what claim-next
 * would hand out next, the order a board shows queued and held tasks in. The cursor is
 * always the id of the last task seen: priority and created_at never change, so a task
 * id pins a position in claim order too.
 */
export const taskOrders = ["id", "newest", "priority"] as const;
export type TaskOrder = (typeof taskOrders)[number];

export const listTasksQuery = z.strictObject({
  status: z.enum(taskStatus.enumValues).optional(),
  queue: queueName.optional(),
  owner: z.literal("me", "must be 'me'").optional(),
  needsCheck: z.enum(["true", "false"], "must be 'true' or 'false'").optional(),
  order: z.enum(taskOrders, "must be 'id', 'newest' or 'priority'").optional(),
  limit: limit.optional(),
  cursor: taskId.optional(),
  /** The work graph's other direction: tasks that depend on this one. */
  dependsOn: taskId.optional(),
});

export const listEventsQuery = z.strictObject({
  after: taskId.optional(),
  limit: limit.optional(),
});

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Where a page starts after the cursor task, and the ORDER BY that goes with it. */
function keyset(order: TaskOrder, cursor: string | undefined): { after: SQL | undefined; orderBy: SQL[] } {
  if (order === "newest") {
    return { after: cursor ? lt(tasks.id, BigInt(cursor)) : undefined, orderBy: [desc(tasks.id)] };
  }
  if (order === "priority") {
    // The cursor task's own values, read in SQL: created_at has microseconds a Date would lose.
    const of = (columns: string) => sql`(SELECT ${sql.raw(columns)} FROM tasks c WHERE c.id = ${cursor}::bigint)`;
    // The redundant `priority <=` gives an index walk a place to start.
    const after = cursor
      ? sql`${tasks.priority} <= ${of("c.priority")}
            AND (${tasks.priority} < ${of("c.priority")} OR (${tasks.createdAt}, ${tasks.id}) > ${of("c.created_at, c.id")})`
      : undefined;
    return { after, orderBy: [desc(tasks.priority), asc(tasks.createdAt), asc(tasks.id)] };
  }
  return { after: cursor ? gt(tasks.id, BigInt(cursor)) : undefined, orderBy: [asc(tasks.id)] };
}

/**
 * A page of tasks, keyset-paginated (the cursor is the last id seen): oldest first by
 * default, or in another `order`. Never an OFFSET: a page costs the same at any depth.
 */
export async function listTasks(db: Executor, query: z.infer<typeof listTasksQuery>, caller: ActorRef): Promise<Page<Task>> {
  const size = query.limit ?? 50;
  const { after, orderBy } = keyset(query.order ?? "id", query.cursor);
  const filters: (SQL | undefined)[] = [
    query.status ? eq(tasks.status, query.status) : undefined,
    query.queue ? eq(tasks.queue, query.queue) : undefined,
    query.owner === "me" ? eq(tasks.ownerId, caller.id) : undefined,
    query.needsCheck ? eq(tasks.needsCheck, query.needsCheck === "true") : undefined,
    query.dependsOn ? sql`${tasks.dependsOn} @> ARRAY[${query.dependsOn}::bigint] AND ${tasks.dependsOn} <> '{}'::bigint[]` : undefined,
    after,
  ];
  const rows = await db
    .select({ task: tasks, owner: { id: actors.id, name: actors.name, kind: actors.kind } })
    .from(tasks)
    .leftJoin(actors, eq(actors.id, tasks.ownerId))
    .where(and(...filters))
    .orderBy(...orderBy)
    .limit(size + 1);
  const items = rows.slice(0, size).map((r) => toTask(r.task, r.owner?.id ? r.owner : null));
  return { items, nextCursor: rows.length > size ? items.at(-1)!.id : null };
}

export interface TaskEvent {
  id: string;
  taskId: string | null;
  queue: string;
  type: string;
  actor: ActorRef;
  payload: unknown;
  createdAt: Date;
}

/** A task's history, oldest first, after an event id. */
export async function listTaskEvents(
  db: Executor,
  id: string,
  query: z.infer<typeof listEventsQuery>,
): Promise<Page<TaskEvent>> {
  const size = query.limit ?? 100;
  const rows = await db
    .select({ event: taskEvents, actor: { id: actors.id, name: actors.name, kind: actors.kind } })
    .from(taskEvents)
    .innerJoin(actors, eq(actors.id, taskEvents.actorId))
    .where(and(eq(taskEvents.taskId, BigInt(id)), query.after ? gt(taskEvents.id, BigInt(query.after)) : undefined))
    .orderBy(asc(taskEvents.id))
    .limit(size + 1);
  const items = rows.slice(0, size).map(({ event, actor }) => ({
    id: event.id.toString(),
    taskId: event.taskId?.toString() ?? null,
    queue: event.queue,
    type: event.type,
    actor,
    payload: event.payload,
    createdAt: event.createdAt,
  }));
  return { items, nextCursor: rows.length > size ? items.at(-1)!.id : null };
}

/** The paused queues, who paused them and since when (the board says so). */
export async function listPausedQueues(db: Executor): Promise<{ name: string; pausedBy: string | null; pausedAt: string | null }[]> {
  const rows = await db
    .select({ name: queues.name, pausedBy: actors.name, pausedAt: queues.pausedAt })
    .from(queues)
    .leftJoin(actors, eq(actors.id, queues.pausedBy))
    .where(eq(queues.paused, true))
    .orderBy(asc(queues.name));
  return rows.map((r) => ({ ...r, pausedAt: r.pausedAt?.toISOString() ?? null }));
}

/** Every queue's name, alphabetically (a handful: queues are made by hand or on first use). */
/** The open queues' names, for the pickers and filter lists: archived queues are hidden there. */
export async function listQueueNames(db: Executor): Promise<string[]> {
  const rows = await db.select({ name: queues.name }).from(queues).where(isNull(queues.archivedAt)).orderBy(asc(queues.name));
  return rows.map((r) => r.name);
}

export interface QueueRules {
  name: string;
  claimants: "anyone" | "people" | "agents";
  maxFailures: number;
  maxAttemptSeconds: number | null;
}

/** Every queue's claim rules, alphabetically: who may claim, the last strike, the attempt ceiling. */
export async function listQueueRules(db: Executor): Promise<QueueRules[]> {
  return db
    .select({ name: queues.name, claimants: queues.claimants, maxFailures: queues.maxFailures, maxAttemptSeconds: queues.maxAttemptSeconds })
    .from(queues)
    .orderBy(asc(queues.name));
}
