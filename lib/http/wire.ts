import { z } from "zod";
import { effectState, taskStatus } from "@/db/schema";
import { readinessCodes, CLAIM_OPS } from "@/lib/tasks/model";
import { ATTENTION_KINDS, type AttentionKind } from "@/lib/attention/kinds";

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

export const effectObject = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().nullable(),
    target: z.string().nullable(),
    detail: z.unknown().meta({ description: "Any JSON the agent recorded with it (≤ 16 KiB), or null" }),
    state: z.enum(effectState.enumValues),
    idempotencyKey: z.string().meta({ description: "Stable for the task and key (or name) across every attempt: send it downstream (e.g. as Idempotency-Key)" }),
    attempt: z.number().int().meta({ description: "The attempt that recorded it" }),
    by: actorRef,
    at: z.iso.datetime(),
    resolvedBy: actorRef.nullable(),
    resolvedAt: z.iso.datetime().nullable(),
    externalRef: z.string().nullable(),
    note: z.string().nullable(),
  })
  .meta({ id: "Effect", description: "One act outside the board, in the effect ledger (intended → applied | failed; intended → unknown when its attempt ends open)" });

export const checkpointObject = z
  .object({
    step: z.number().int().min(1).max(200),
    state: z.unknown().meta({ description: "Any JSON the attempt recorded with the step (≤ 64 KiB), or null" }),
    attempt: z.number().int().meta({ description: "The attempt that recorded it" }),
    by: actorRef,
    at: z.iso.datetime(),
  })
  .meta({ id: "Checkpoint", description: "How far an attempt got: a step (1..200) and its state. Only the current attempt records one; a successor resumes after the latest" });

export const reservationObject = z
  .object({
    resource: z.string().meta({ description: "A relative /-separated path; a last segment ** covers the subtree" }),
    mode: z.enum(["exclusive", "shared"]),
  })
  .meta({ id: "Reservation", description: "Two reservations conflict when either is exclusive and one covers the other" });

export const heldReservationObject = reservationObject
  .extend({ taskId: z.string(), title: z.string(), queue: z.string(), owner: actorRef, leaseUntil: z.iso.datetime().nullable().meta({ description: "null while the task is parked on a question (awaiting_input)" }) })
  .meta({ id: "HeldReservation", description: "A reservation held now: by the task that holds it and its owner, until the lease ends" });
export const unreadObject = z
  .object({
    eventId: z.string().meta({ description: "The `commented` event: acknowledge up to it with POST /tasks/{id}/ack" }),
    by: actorRef,
    text: z.string(),
    at: z.iso.datetime(),
  })
  .meta({ id: "Unread", description: "A comment by someone other than the holder that the holder has not acknowledged" });

const submissionObject = z
  .object({
    result: z.unknown().meta({ description: "The result the completion sent: any JSON (null without one)" }),
    digest: z.string().meta({ description: "SHA-256 (hex) of the canonical JSON of result (object keys sorted): send it back with the review" }),
    by: actorRef,
    attempt: z.number().int().meta({ description: "The attempt that submitted it" }),
    at: z.iso.datetime(),
  })
  .meta({ id: "Submission", description: "A completion waiting for review (status in_review), or the one approved" });

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
    attempt: z.number().int().min(0).meta({ description: "The number of the current or last holding; every claim takes attempt + 1 and a number is never reused" }),
    fence: z.string().nullable().meta({ description: "The holder's fence for this attempt (also the Claimboard-Fence header of an owner call); null for everyone else. Verify with POST /fences/verify" }),
    failureCount: z.number().int(),
    needsCheck: z.boolean(),
    dependsOn: z.array(z.string()).meta({ description: "Ids of the tasks this one waits for (the work graph)" }),
    blockedBy: z.array(z.string()).meta({ description: "The dependencies not done yet; claimable only when empty" }),
    notBefore: z.iso.datetime().nullable().meta({ description: "Not claimable before this time (scheduled, or the retry backoff)" }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    handoff: handoffObject.nullable(),
    progress: progressObject.nullable(),
    reserves: z.array(reservationObject).meta({ description: "What the task reserves while it is held ([] when nothing): claim-next skips it while a held task's reservation conflicts" }),
    openEffects: z.array(effectObject).meta({ description: "The effect ledger's open effects (intended or unknown), oldest first: resolve each unknown one before completing" }),
    submission: submissionObject.nullable().meta({ description: "The completion waiting for review (in_review), or the one approved; null otherwise" }),
    budget: z.object({ limit: z.number(), unit: z.string() }).nullable().meta({ description: "A limit on what holders may spend on it, in the team's unit; null without one. At the limit a heartbeat parks the task (awaiting_input) until a supervisor raises it" }),
    spent: z.number().meta({ description: "What holders reported spending on it (heartbeat and complete `spend`), over every attempt" }),
    checkpoint: checkpointObject.nullable().meta({ description: "The latest checkpoint, of whichever attempt: where a successor resumes (after its step); null without one" }),
    unread: z.array(unreadObject).optional().meta({ description: "For the holder, on its heartbeat, claim and on 409 unread_human_input: others' comments not yet acknowledged, oldest first ([] when none); absent elsewhere" }),
  })
  .meta({ id: "Task" });

const statusCounts = z.object(Object.fromEntries(taskStatus.enumValues.map((s) => [s, z.number().int()])) as Record<(typeof taskStatus.enumValues)[number], z.ZodNumber>);

export const taskCountsObject = z
  .object({
    statuses: statusCounts.meta({ description: "The filter's tasks in each status" }),
    queues: z.array(z.object({
      queue: z.string(),
      description: z.string(),
      claimants: z.enum(["anyone", "people", "agents"]).meta({ description: "Who may claim its tasks" }),
      paused: z.boolean(),
      statuses: statusCounts,
    })).meta({ description: "Every queue that is not archived, unfiltered" }),
    cap: z.number().int().meta({ description: "A count of cap + 1 means more than cap" }),
  })
  .meta({ id: "TaskCounts" });

export const readinessObject = z
  .object({
    claimable: z.boolean(),
    reasons: z.array(z.object({
      code: z.enum(readinessCodes),
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
    lockDelaySeconds: z.number().int().meta({ description: "After a lease lapses, nobody may claim the task until the lapse + this many seconds (readiness lock_delay)" }),
    personIdleSeconds: z.number().int().meta({ description: "A person's leases are renewed while they were active in the app within this many seconds (default 1800; 0: the lease alone)" }),
    personGraceSeconds: z.number().int().meta({ description: "After a person's lease lapses, agents may claim the task only this many seconds later (default 300; readiness person_grace)" }),
    maxRenewalsWithoutProgress: z.number().int().meta({ description: "Renewals in a row without progress (the same or no `progress`, no checkpoint, effect or question since) an attempt may make; the next is refused 409 no_progress and the attempt fails as a strike (default 0: off)" }),
    questionTimeoutSeconds: z.number().int().meta({ description: "How long a question to a person waits for its answer before the task goes to the supervisors' inbox (default 86400)" }),
    claimants: z.enum(["anyone", "people", "agents"]),
    commenters: z.enum(["anyone", "people", "supervisors"]).meta({ description: "Who may comment on the queue's tasks (anyone, people and supervisor tokens, or supervisors)" }),
    maxAttemptSeconds: z.number().int().nullable(),
    review: z.enum(["none", "agents", "everyone"]).meta({ description: "Which completions wait for a reviewer (in_review) instead of becoming done: none, those by agents, or everyone's" }),
    paused: z.boolean(),
    pausedAt: z.iso.datetime().nullable(),
    pausedBy: z.string().nullable().meta({ description: "Who paused it (a name), while paused" }),
    breakerTrippedAt: z.iso.datetime().nullable(),
    breakerReason: z.string().nullable(),
    archivedAt: z.iso.datetime().nullable().meta({ description: "Archived: no new tasks or claims; its tasks and history stay" }),
    archivedBy: z.string().nullable(),
    counts: statusCounts.meta({ description: "Tasks in each status now; a count of cap + 1 means more than cap" }),
    throughput: z.object({ lastHour: z.number().int(), last24Hours: z.number().int() }).meta({ description: "Tasks finished (completed, resolved, or approved in review)" }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "Queue" });

export const taskResponse = z.object({ task: taskObject });
export const queueResponse = z.object({ queue: queueObject });
export const healthBody = z.object({ ok: z.boolean(), db: z.enum(["up", "down"]) });

/** A schedule (docs/contract.md#recurring-work): a cron in a time zone that makes a task each time. */
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
    authorityEndedAt: z.iso.datetime().nullable().meta({ description: "Paused since: the authority it acts with (its maker's, or its adopter's) ended; null while it holds" }),
    authorityEndedReason: z.string().nullable().meta({ description: "Why that authority ended (demoted, disabled, token revoked or expired); a supervisor's adopt resumes it" }),
  })
  .meta({ id: "Schedule" });
export const scheduleResponse = z.object({ schedule: scheduleObject });

/** A webhook (docs/contract.md#notifications); its secret only in the answer that made it. */
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
    authorityEndedAt: z.iso.datetime().nullable().meta({ description: "Paused since: the authority it acts with (its maker's, or its adopter's) ended; null while it holds" }),
    authorityEndedReason: z.string().nullable().meta({ description: "Why that authority ended (demoted, disabled, token revoked or expired); a supervisor's adopt resumes it" }),
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
    matched: z.string().meta({ description: "The webhook's subscription this delivery matched: the event's type, the type it is delivered under (approved under completed), or *" }),
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
/** The task object of docs/contract.md#the-task-object; timestamps are ISO 8601 strings from the database clock. */
export type Task = Loose<z.infer<typeof taskObject>>;
export type TaskEvent = Loose<z.infer<typeof eventObject>>;
/** Why a task is or is not claimable by the caller now (GET /tasks/{id}/readiness). */
export type Readiness = z.infer<typeof readinessObject>;
export type TaskCounts = z.infer<typeof taskCountsObject>;
/** A queue as GET /queues shows it (supervisor tokens). */
export type Queue = z.infer<typeof queueObject>;
export type Health = z.infer<typeof healthBody>;
export type Webhook = z.infer<typeof webhookObject>;
export type HeldReservation = z.infer<typeof heldReservationObject>;
export type Schedule = Loose<z.infer<typeof scheduleObject>>;
export type WebhookDelivery = z.infer<typeof webhookDeliveryObject>;
/** The error body of docs/contract.md#errors's `error`. */
export type ApiError = Loose<z.infer<typeof errorObject>["error"]>;

export const fenceVerdictObject = z
  .object({
    current: z.boolean().meta({ description: "The fence's attempt holds the task now: act on its request" }),
    taskId: z.string(),
    attempt: z.number().int(),
    currentAttempt: z.number().int(),
    status: z.enum(taskStatus.enumValues),
    reason: z.enum(["current", "superseded", "released", "lapsed", "finished"]).meta({
      description: "current; superseded (another holding began); released (given back, or failed back to the queue); lapsed (the lease ran out, nobody has taken it yet); finished (done, cancelled, escalated)",
    }),
  })
  .meta({ id: "FenceVerdict" });
/** POST /fences/verify: what a fence names and whether its attempt holds the task now. */
export type FenceVerdict = z.infer<typeof fenceVerdictObject>;
export type Effect = Loose<z.infer<typeof effectObject>>;
export const effectResponse = z.object({ effect: effectObject, task: taskObject });
export type Checkpoint = Loose<z.infer<typeof checkpointObject>>;
export const checkpointResponse = z.object({ checkpoint: checkpointObject, task: taskObject });

/** Asking a person (docs/contract.md#asking-a-person, docs/questions.md). */
export const questionObject = z
  .object({
    id: z.string(),
    taskId: z.string(),
    kind: z.enum(["agent", "budget"]).meta({ description: "agent: the owner asked; budget: the system asked on reaching the task's budget" }),
    question: z.string(),
    choices: z.array(z.string()).meta({ description: "The answers offered (buttons in the UI); empty: a free-text answer" }),
    askedBy: actorRef,
    askedAt: z.iso.datetime(),
    deadline: z.iso.datetime().meta({ description: "Unanswered by then, the task goes to the supervisors' inbox (escalated), the question kept" }),
    answer: z
      .object({ text: z.string(), choice: z.string().nullable(), by: actorRef, at: z.iso.datetime() })
      .nullable()
      .meta({ description: "null until a person answers" }),
    expiredAt: z.iso.datetime().nullable().meta({ description: "When it went unanswered past its deadline; null while open or once answered" }),
  })
  .meta({ id: "Question", description: "A question from a task's owner to a person; asking parks the lease (awaiting_input), the answer resumes it" });
export type Question = Loose<z.infer<typeof questionObject>>;
export const questionResponse = z.object({ question: questionObject, task: taskObject });

/** POST /tasks/{id}/claim-tokens: the claim token (shown once) and what it is bound to. */
export const claimTokenResponse = z
  .object({
    claimToken: z.string().meta({ description: "cbc_…: a bearer token for this task and attempt only; shown in this answer only" }),
    ops: z.array(z.enum(CLAIM_OPS)),
    taskId: z.string(),
    attempt: z.number().int(),
  })
  .meta({ id: "ClaimToken" });
export type ClaimToken = z.infer<typeof claimTokenResponse>;

const attentionKind = z.enum(ATTENTION_KINDS);
export const attentionObject = z.object({
  counts: z.object(Object.fromEntries(ATTENTION_KINDS.map((k) => [k, z.number().int().min(0)])) as Record<AttentionKind, z.ZodNumber>)
    .describe("Per kind, what the caller may act on now (each stops at 999; `more` names those past it)"),
  more: z.array(attentionKind),
  items: z.array(z.object({
    kind: attentionKind, taskId: z.string(), title: z.string(), queue: z.string(), since: z.iso.datetime(),
    questionId: z.string().optional().describe("questions: the question to answer; budgets: the budget question a raise answers"),
  })).describe("The first 50 of each kind, kind by kind"),
  nextChangeAt: z.iso.datetime().nullable().describe("When time alone changes the answer (a lease of the caller's nears its end or one lapses): ask again then"),
}).meta({ id: "Attention", description: "What waits for the caller: questions they may answer, reviews they may do, budgets they may raise, their leases about to lapse, lapsed and escalated tasks and unknown effects they may act on" });
