import { and, asc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { actors, queues, taskEvents, taskLease, tasks } from "@/db/schema";
import { typedEvent } from "../core/event-payloads";
import { listTasks } from "../reads/queries";
import { toTask } from "../core/task-row";
import type { ActorRef, Task } from "../core/types";

/** Most escalated tasks the inbox shows (and acts on in bulk) for one filter: the bulk action's cap. */
export const INBOX_LIMIT = 500;
/** Lapsed tasks listed under each tripped breaker. */
const HELD_BACK_LIMIT = 50;

export interface Failure {
  eventId: string;
  reason: string;
  actor: ActorRef;
  at: Date;
}

export interface InboxTask {
  task: Task;
  failures: Failure[];
  /** When it last reached the inbox (its latest `escalated` event; updatedAt when none). */
  escalatedAt: Date;
  /**
   * Why it is here, the key the inbox groups by: the reason of its latest escalation (a
   * cancelled dependency, an attempt ceiling) or else of its latest failure, as written.
   */
  reason: string;
}

export interface TrippedQueue {
  name: string;
  trippedAt: Date;
  reason: string;
  /** Claimed or started tasks whose lease has lapsed: the breaker holds them back. */
  heldBack: Task[];
}

export interface Inbox {
  queue: string | null;
  escalated: InboxTask[];
  truncated: boolean;
  breakers: TrippedQueue[];
}

/** Escalated tasks (newest first) with every failure reason from their `failed` events. */
async function escalatedTasks(db: Executor, queue: string | null, caller: ActorRef) {
  const found: Task[] = [];
  let cursor: string | null = null;
  do {
    const page = await listTasks(db, { status: "escalated", order: "newest", limit: 100, ...(queue ? { queue } : {}), ...(cursor ? { cursor } : {}) }, caller);
    found.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && found.length < INBOX_LIMIT);
  const shown = found.slice(0, INBOX_LIMIT);
  const byTask = new Map<string, Failure[]>(shown.map((t) => [t.id, []]));
  const escalation = new Map<string, { at: Date; reason: string | null }>();
  if (shown.length > 0) {
    // One indexed read for the page (task_events_task: task id, then event id), at most 500 tasks.
    const rows = await db
      .select({ event: { id: taskEvents.id, type: taskEvents.type, taskId: taskEvents.taskId, payload: taskEvents.payload, createdAt: taskEvents.createdAt }, actor: { id: actors.id, name: actors.name, kind: actors.kind } })
      .from(taskEvents)
      .innerJoin(actors, eq(actors.id, taskEvents.actorId))
      .where(and(inArray(taskEvents.type, ["failed", "escalated"]), inArray(taskEvents.taskId, shown.map((t) => BigInt(t.id)))))
      .orderBy(asc(taskEvents.id));
    for (const { event: row, actor } of rows) {
      const event = typedEvent(row);
      const id = event.taskId!.toString();
      const reason = event.type === "failed" || event.type === "escalated" ? event.payload?.reason : undefined;
      if (event.type === "escalated") {
        escalation.set(id, { at: event.createdAt, reason: typeof reason === "string" ? reason : null });
        continue;
      }
      byTask.get(id)?.push({
        eventId: event.id.toString(),
        reason: typeof reason === "string" ? reason : "(no reason given)",
        actor,
        at: event.createdAt,
      });
    }
  }
  const item = (task: Task): InboxTask => {
    const failures = byTask.get(task.id)!;
    const escalated = escalation.get(task.id);
    return {
      task,
      failures,
      escalatedAt: escalated?.at ?? task.updatedAt,
      reason: escalated?.reason ?? failures.at(-1)?.reason ?? "(no reason given)",
    };
  };
  return { escalated: shown.map(item), truncated: !!cursor || found.length > INBOX_LIMIT };
}

/** Queues whose breaker is tripped, each with the lapsed tasks it is holding back. */
async function trippedQueues(db: Executor): Promise<TrippedQueue[]> {
  const tripped = await db.select().from(queues).where(isNotNull(queues.breakerTrippedAt)).orderBy(asc(queues.name));
  return Promise.all(
    tripped.map(async (queue) => {
      // The lapsed leases are found in the held set's leases (task_lease_until), as the lapsed list's are.
      const rows = await db
        .select({ task: tasks, owner: { id: actors.id, name: actors.name, kind: actors.kind } })
        .from(taskLease)
        .innerJoin(tasks, eq(tasks.id, taskLease.id))
        .leftJoin(actors, eq(actors.id, tasks.ownerId))
        .where(and(eq(taskLease.queue, queue.name), lt(taskLease.leaseUntil, sql`now()`)))
        .orderBy(asc(taskLease.leaseUntil), asc(taskLease.id))
        .limit(HELD_BACK_LIMIT);
      return {
        name: queue.name,
        trippedAt: queue.breakerTrippedAt!,
        reason: queue.breakerReason ?? "(no reason recorded)",
        heldBack: rows.map((r) => toTask(r.task, r.owner?.id ? r.owner : null)),
      };
    }),
  );
}

export async function readInbox(db: Executor, queue: string | null, caller: ActorRef): Promise<Inbox> {
  const [{ escalated, truncated }, breakers] = await Promise.all([escalatedTasks(db, queue, caller), trippedQueues(db)]);
  return { queue, escalated, truncated, breakers };
}
