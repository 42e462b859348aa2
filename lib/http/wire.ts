import { z } from "zod";
import { taskStatus } from "@/db/schema";

// What the API answers with, once: the zod schemas the OpenAPI document and the MCP tools'
// output schemas are made from, and the wire types inferred from them, which the typed
// client and the browser use. Pure: zod and db/schema's status enum, no server-only code
// and no database connection.

export const actorRef = z.object({ id: z.string(), name: z.string(), kind: z.enum(["user", "agent", "system"]) });

const handoffObject = z
  .object({
    summary: z.string(),
    next: z.string().nullable(),
    artifacts: z.array(z.string()),
    by: actorRef,
    at: z.iso.datetime(),
  })
  .meta({ id: "Handoff", description: "The latest hand-off note: from a release or fail, or by the system when a lease lapsed after progress" });

const progressObject = z
  .object({ value: z.json(), at: z.iso.datetime() })
  .meta({ id: "Progress", description: "The current attempt's last heartbeat progress" });

export const taskObject = z
  .object({
    id: z.string(),
    queue: z.string(),
    title: z.string(),
    description: z.string(),
    payload: z.json(),
    priority: z.number().int(),
    status: z.enum(taskStatus.enumValues),
    owner: actorRef.nullable(),
    leaseUntil: z.iso.datetime().nullable(),
    version: z.number().int(),
    failureCount: z.number().int(),
    needsCheck: z.boolean(),
    dependsOn: z.array(z.string()).meta({ description: "Ids of the tasks this one waits for (the work graph)" }),
    blockedBy: z.array(z.string()).meta({ description: "The dependencies not done yet; claimable only when empty" }),
    notBefore: z.iso.datetime().nullable().meta({ description: "Not claimable before this time (scheduled, or the retry backoff)" }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    handoff: handoffObject.nullable(),
    progress: progressObject.nullable(),
  })
  .meta({ id: "Task" });

const statusCounts = z.object(Object.fromEntries(taskStatus.enumValues.map((s) => [s, z.number().int()])) as Record<(typeof taskStatus.enumValues)[number], z.ZodNumber>);

export const taskCountsObject = z
  .object({
    statuses: statusCounts.meta({ description: "The filter's tasks in each status" }),
    queues: z.array(z.object({ queue: z.string(), statuses: statusCounts })).meta({ description: "Every queue that is not archived, unfiltered" }),
    cap: z.number().int().meta({ description: "A count of cap + 1 means more than cap" }),
  })
  .meta({ id: "TaskCounts" });

export const readinessObject = z
  .object({
    claimable: z.boolean(),
    reasons: z.array(z.object({
      code: z.enum(["status", "held", "breaker_tripped", "queue_archived", "queue_paused", "claimants", "blocked", "not_before", "needs_check"]),
      message: z.string(),
    })),
    claimableAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "Readiness" });

export const eventObject = z
  .object({
    id: z.string(),
    taskId: z.string().nullable(),
    queue: z.string(),
    type: z.string(),
    actor: actorRef,
    payload: z.json(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "TaskEvent" });

export const errorObject = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      field: z.string().optional(),
      task: taskObject.optional(),
    }),
  })
  .meta({ id: "Error" });

export const queueObject = z
  .object({
    name: z.string(),
    description: z.string(),
    leaseSeconds: z.number().int(),
    maxFailures: z.number().int(),
    expiryThreshold: z.number().int(),
    expiryWindowSeconds: z.number().int(),
    retryDelaySeconds: z.number().int(),
    claimants: z.enum(["anyone", "people", "agents"]),
    commenters: z.enum(["anyone", "people", "supervisors"]).meta({ description: "Who may comment on the queue's tasks (anyone, people and supervisor tokens, or supervisors)" }),
    maxAttemptSeconds: z.number().int().nullable(),
    paused: z.boolean(),
    pausedAt: z.iso.datetime().nullable(),
    pausedBy: z.string().nullable().meta({ description: "Who paused it (a name), while paused" }),
    breakerTrippedAt: z.iso.datetime().nullable(),
    breakerReason: z.string().nullable(),
    archivedAt: z.iso.datetime().nullable().meta({ description: "Archived: no new tasks or claims; its tasks and history stay" }),
    archivedBy: z.string().nullable(),
    counts: statusCounts.meta({ description: "Tasks in each status now; a count of cap + 1 means more than cap" }),
    throughput: z.object({ lastHour: z.number().int(), last24Hours: z.number().int() }).meta({ description: "Tasks finished (completed or resolved)" }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "Queue" });

export const taskResponse = z.object({ task: taskObject });
export const queueResponse = z.object({ queue: queueObject });
export const healthBody = z.object({ ok: z.boolean(), db: z.enum(["up", "down"]) });

/** A schedule (API.md "Recurring work"): a cron in a time zone that makes a task each time. */
export const scheduleObject = z
  .object({
    id: z.uuid(),
    name: z.string(),
    cron: z.string().meta({ description: "Five fields: minute hour day-of-month month day-of-week" }),
    timezone: z.string().meta({ description: "IANA time zone the cron is read in" }),
    queue: z.string(),
    task: z.object({ title: z.string(), description: z.string().optional(), priority: z.number().int().optional(), payload: z.record(z.string(), z.json()).optional() }),
    overlap: z.enum(["skip", "allow"]),
    missed: z.enum(["skip", "once"]),
    paused: z.boolean(),
    nextAt: z.iso.datetime().nullable().meta({ description: "The next occurrence; null while paused" }),
    lastAt: z.iso.datetime().nullable(),
    lastResult: z
      .object({ kind: z.enum(["created", "backfilled", "skipped", "failed"]), taskId: z.string().optional(), reason: z.string().optional() })
      .nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "Schedule" });
export const scheduleResponse = z.object({ schedule: scheduleObject });

/** A webhook (API.md "Notifications"); its secret only in the answer that made it. */
export const webhookObject = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()).meta({ description: "Event types delivered, or [\"*\"] for all" }),
    queues: z.array(z.string()).nullable().meta({ description: "Only these queues' events; null for every queue" }),
    description: z.string(),
    createdAt: z.iso.datetime(),
    disabledAt: z.iso.datetime().nullable(),
    disabledReason: z.string().nullable().meta({ description: "Why nothing more is sent, e.g. the receiver answered 410 Gone" }),
  })
  .meta({ id: "Webhook" });
export const webhookDeliveryObject = z
  .object({
    id: z.string(),
    eventId: z.string().meta({ description: "The event's id: webhook-id is evt_<eventId>, the same on every try" }),
    type: z.string(),
    taskId: z.string().nullable(),
    queue: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    nextAttemptAt: z.iso.datetime().nullable(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastAttemptAt: z.iso.datetime().nullable(),
    deliveredAt: z.iso.datetime().nullable(),
    eventAt: z.iso.datetime(),
  })
  .meta({ id: "WebhookDelivery" });

/**
 * A schema's type as callers hold it: a JSON value (payload, progress, a result) is
 * `unknown`, as the engine holds it, rather than zod's recursive JSON type.
 */
export type Loose<T> = z.core.util.JSONType extends T ? unknown : T extends (infer U)[] ? Loose<U>[] : T extends object ? { [K in keyof T]: Loose<T[K]> } : T;

export type TaskStatus = (typeof taskStatus.enumValues)[number];
export type ActorRef = z.infer<typeof actorRef>;
/** The latest hand-off note on a task (from a release or fail, or by the system after a lapse). */
export type Handoff = z.infer<typeof handoffObject>;
/** API.md's task object; timestamps are ISO 8601 strings from the database clock. */
export type Task = Loose<z.infer<typeof taskObject>>;
export type TaskEvent = Loose<z.infer<typeof eventObject>>;
/** Why a task is or is not claimable by the caller now (GET /tasks/{id}/readiness). */
export type Readiness = z.infer<typeof readinessObject>;
export type TaskCounts = z.infer<typeof taskCountsObject>;
/** A queue as GET /queues shows it (supervisor tokens). */
export type Queue = z.infer<typeof queueObject>;
export type Health = z.infer<typeof healthBody>;
export type Webhook = z.infer<typeof webhookObject>;
export type Schedule = Loose<z.infer<typeof scheduleObject>>;
export type WebhookDelivery = z.infer<typeof webhookDeliveryObject>;
/** API.md's error body's `error`. */
export type ApiError = Loose<z.infer<typeof errorObject>["error"]>;
