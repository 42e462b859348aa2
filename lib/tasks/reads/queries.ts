import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { z } from "zod";
import type { Executor } from "@/db/client";
import { actors, queues, taskEvents, taskState, taskStatus, tasks } from "@/db/schema";
import { typedEvent, type TypedEvent } from "../core/event-payloads";
import { searchCondition } from "./search";
import { toTask, withAttemptReads } from "../core/task-row";
import type { ActorRef, Task } from "../core/types";

import type { ListTasksQuery, TaskOrder, listEventsQuery } from "./query-schemas";

export { listEventsQuery, listTasksQuery } from "./query-schemas";
export type { ListTasksQuery, TaskOrder, TaskSort } from "./query-schemas";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

type Ordering = TaskOrder | "created" | "updated";

/** sort= and order= name one ordering (they are refused together). */
function orderingOf(query: ListTasksQuery): Ordering {
  if (query.sort === "priority") return "priority";
  if (query.sort) return query.sort;
  return query.order ?? "id";
}

/** The cursor task's own values, read in SQL: created_at has microseconds a Date would lose. */
const of = (cursorId: string, columns: string) => sql`(SELECT ${sql.raw(columns)} FROM task_state c WHERE c.id = ${cursorId}::bigint)`;

/** The columns an ordering reads: task_state's, where the page is chosen, or the view's, where it is read. */
type OrderColumns = Record<"id" | "priority" | "createdAt" | "updatedAt", AnyPgColumn>;

/** Where a page starts after the cursor, and the ORDER BY that goes with it. */
function keyset(order: Ordering, cursor: string | undefined, t: OrderColumns): { after: SQL | undefined; orderBy: SQL[] } {
  const [id, micros] = cursor ? cursor.split(".") : [undefined, undefined];
  if (order === "newest") {
    return { after: id ? lt(t.id, BigInt(id)) : undefined, orderBy: [desc(t.id)] };
  }
  if (order === "priority") {
    // The redundant `priority <=` gives an index walk a place to start.
    const after = id
      ? sql`${t.priority} <= ${of(id, "c.priority")}
            AND (${t.priority} < ${of(id, "c.priority")} OR (${t.createdAt}, ${t.id}) > ${of(id, "c.created_at, c.id")})`
      : undefined;
    return { after, orderBy: [desc(t.priority), asc(t.createdAt), asc(t.id)] };
  }
  if (order === "created") {
    const after = id ? sql`(${t.createdAt}, ${t.id}) < ${of(id, "c.created_at, c.id")}` : undefined;
    return { after, orderBy: [desc(t.createdAt), desc(t.id)] };
  }
  if (order === "updated") {
    // The value the cursor task had when the page was read: it may have moved since, and a
    // walk must neither repeat nor skip the tasks that did not.
    const at = micros !== undefined ? sql`(timestamptz 'epoch' + ${micros}::bigint * interval '1 microsecond')` : of(id ?? "0", "c.updated_at");
    const after = id ? sql`(${t.updatedAt}, ${t.id}) < (${at}, ${id}::bigint)` : undefined;
    return { after, orderBy: [desc(t.updatedAt), desc(t.id)] };
  }
  return { after: id ? gt(t.id, BigInt(id)) : undefined, orderBy: [asc(t.id)] };
}

/**
 * Owned by the caller, exactly (owner_id), in a form two indexes can answer (migration 0033): no
 * index of task_state names a held task's owner, so that a claim changes no indexed value.
 * A settled task's owner is tasks_settled_owner's key; a held task's is found in task_held
 * (task_held_owner), its ids handed over as an array the primary key can probe. A queued task
 * has no owner.
 */
export const ownedBy = (actorId: string) => sql`${taskState.ownerId} = ${actorId}::uuid
  AND (${taskState.settledOwner} = ${actorId}::uuid
       OR ${taskState.id} = ANY(ARRAY(SELECT h.id FROM task_held h WHERE h.owner_id = ${actorId}::uuid)))`;

/** The filters of a list (everything but the page position), on task_state's columns; the counts share them. */
export function taskFilters(query: Omit<ListTasksQuery, "order" | "sort" | "limit" | "cursor">, caller: ActorRef): SQL[] {
  const filters: (SQL | undefined)[] = [
    query.status ? eq(taskState.status, query.status) : undefined,
    query.queue ? eq(taskState.queue, query.queue) : undefined,
    query.owner === "me" ? ownedBy(caller.id) : undefined,
    query.owner === "none" ? isNull(taskState.ownerId) : undefined,
    query.needsCheck ? eq(taskState.needsCheck, query.needsCheck === "true") : undefined,
    query.q ? searchCondition(query.q) : undefined,
    query.minPriority !== undefined ? gte(taskState.priority, query.minPriority) : undefined,
    query.olderThan ? sql`${taskState.createdAt} <= now() - make_interval(secs => ${query.olderThan})` : undefined,
    query.dependsOn ? sql`${taskState.dependsOn} @> ARRAY[${query.dependsOn}::bigint] AND ${taskState.dependsOn} <> '{}'::bigint[]` : undefined,
  ];
  return filters.filter((f): f is SQL => f !== undefined);
}

/**
 * The first `limit` ids in claim order (priority, created_at, id) among every status: a page
 * of each status, then the best of those. No index orders tasks by priority across statuses
 * (tasks_status_order leads with the status), so one statement over them all read a queue's
 * every task and sorted them (160–210 ms at a million tasks); a branch a status is a walk of
 * tasks_status_order that stops at the limit, or, for a small queue, its tasks in that status
 * from tasks_queue_status and a sort of those (CHANGELOG.md).
 */
export function inClaimOrderAcrossStatuses(where: SQL | undefined, limit: number): SQL {
  const branches = taskStatus.enumValues.map((status) => sql`(
    SELECT ${taskState.id}, ${taskState.priority}, ${taskState.createdAt} FROM ${taskState}
    WHERE ${taskState.status} = ${status} ${where ? sql`AND ${where}` : sql``}
    ORDER BY ${taskState.priority} DESC, ${taskState.createdAt}, ${taskState.id}
    LIMIT ${limit})`);
  // Parenthesized: it is the right side of an IN.
  return sql`(SELECT id FROM (${sql.join(branches, sql` UNION ALL `)}) every_status
    ORDER BY priority DESC, created_at, id LIMIT ${limit})`;
}

/**
 * A page of tasks, keyset-paginated: oldest first by default, or in another `order` /
 * `sort`. Never an OFFSET: a page costs the same at any depth.
 */
export async function listTasks(db: Executor, query: ListTasksQuery, caller: ActorRef): Promise<Page<Task>> {
  const size = query.limit ?? 50;
  const ordering = orderingOf(query);
  const { after, orderBy } = keyset(ordering, query.cursor, taskState);
  // The page is chosen on task_state (its indexes, or a sort of its narrow rows where none
  // serves the order) and only its rows are read with their words and owners: through the view,
  // a sort without an index would join every task to its words first (migration 0027).
  const where = and(...taskFilters(query, caller), after);
  // A search, "mine" and dependsOn find their few tasks first (an InitPlan or an index of their
  // own): one statement sorts those, where eight branches would each find them again.
  const bounded = query.q || query.owner === "me" || query.dependsOn;
  const chosen = ordering === "priority" && !query.status && !bounded
    ? inClaimOrderAcrossStatuses(where, size + 1)
    : db.select({ id: taskState.id }).from(taskState).where(where).orderBy(...orderBy).limit(size + 1);
  const rows = await db
    .select({
      task: tasks,
      owner: { id: actors.id, name: actors.name, kind: actors.kind },
      // Microseconds, exact: a JavaScript Date would round the cursor to milliseconds.
      updatedMicros: sql<string>`(extract(epoch FROM ${tasks.updatedAt}) * 1000000)::bigint::text`,
    })
    .from(tasks)
    .leftJoin(actors, eq(actors.id, tasks.ownerId))
    .where(inArray(tasks.id, chosen))
    .orderBy(...keyset(ordering, undefined, tasks).orderBy);
  const page = rows.slice(0, size);
  // The effect ledger's open effects (the board marks unknown ones): one read, only for rows that may have any.
  const items = await withAttemptReads(db, page.map((r) => r.task), page.map((r) => toTask(r.task, r.owner?.id ? r.owner : null)));
  const last = rows[size - 1];
  const nextCursor = rows.length > size ? (ordering === "updated" ? `${last!.task.id}.${last!.updatedMicros}` : items.at(-1)!.id) : null;
  return { items, nextCursor };
}

/** One event of a task's history; its payload is typed by its type (event-payloads.ts). */
export type TaskEvent = {
  id: string;
  taskId: string | null;
  queue: string;
  actor: ActorRef;
  createdAt: Date;
} & TypedEvent;

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
  const items = rows.slice(0, size).map(({ event, actor }): TaskEvent => typedEvent({
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

/** The open queues' names, alphabetically, for the pickers and filter lists: archived queues are hidden there. */
export async function listQueueNames(db: Executor): Promise<string[]> {
  const rows = await db.select({ name: queues.name }).from(queues).where(isNull(queues.archivedAt)).orderBy(asc(queues.name));
  return rows.map((r) => r.name);
}

export interface QueueRules {
  name: string;
  claimants: "anyone" | "people" | "agents";
  maxFailures: number;
  maxAttemptSeconds: number | null;
  /** Whose completions wait for a reviewer: a person's form submits for review where it is `everyone`. */
  review: "none" | "agents" | "everyone";
}

/** Every queue's claim rules, alphabetically: who may claim, the last strike, the attempt ceiling. */
export async function listQueueRules(db: Executor): Promise<QueueRules[]> {
  return db
    .select({ name: queues.name, claimants: queues.claimants, maxFailures: queues.maxFailures, maxAttemptSeconds: queues.maxAttemptSeconds, review: queues.review })
    .from(queues)
    .orderBy(asc(queues.name));
}
