import { z } from "zod";
import type { TokenRole } from "@/db/schema";
import { countTasksQuery, listEventsQuery, listTasksQuery, verifyFenceInput, effectBody, resolveEffectBody, answerQuestionBody, askQuestionBody, readQuestionQuery, claimTokenBody, budget, EVERYONE, SUPERVISORS, tokenRoles, checkpointBody, ackBody } from "@/lib/tasks/model";
import { eventStreamQuery } from "@/lib/realtime/query";
import * as input from "@/lib/tasks/model";
import { createWebhookInput, listDeliveriesQuery } from "@/lib/webhooks/schemas";
import { createScheduleInput, updateScheduleBody } from "@/lib/schedules/schemas";
import {
  claimTokenResponse, effectObject, effectResponse, errorObject, questionObject, questionResponse, eventObject, fenceVerdictObject, healthBody, queueObject, queueResponse, readinessObject,
  attentionObject, checkpointObject, checkpointResponse, heldReservationObject, taskCountsObject, taskObject, taskResponse, scheduleObject, scheduleResponse, webhookDeliveryObject, webhookObject,
} from "./wire";
import { fleetResponse } from "./fleet-wire";
import { leaseObject } from "./lease-wire";

export { errorObject, eventObject, queueObject, readinessObject, taskCountsObject, taskObject };

// Every endpoint of the agent API, once: the only list of them. The route files, the MCP
// endpoint's in-process calls (lib/http/handlers joins each entry with its handler), the
// typed client (lib/client) and the OpenAPI document are all made from these entries.
// Pure (zod schemas only), so the typed client can import it.

/** The request header naming the calling process of an agent (host:pid, …); see the handler. */
export const INSTANCE_HEADER = "Claimboard-Instance";

export interface Endpoint {
  operationId: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI form, under /api/v1. */
  path: string;
  summary: string;
  /**
   * Token roles allowed; "public" needs no token. Stated only by an endpoint that runs no engine
   * operation (a read of the board, the stream, the document): one that runs an operation
   * admits what its `who` admits (lib/http/access.ts rolesOf, which every reader asks).
   */
  roles?: TokenRole[] | "public";
  /** Also open to a signed-in person's session cookie (the browser's EventSource). */
  session?: boolean;
  body?: z.ZodType;
  query?: z.ZodType;
  success: { status: number; description: string; schema?: z.ZodType; contentType?: "application/json" | "text/event-stream" | "text/plain" };
  /** Other answers that are not errors (no schema: no body), e.g. 204 when nothing is claimable. */
  alsoAnswers?: { status: number; description: string; schema?: z.ZodType }[];
  /** Error statuses beyond the ones every authenticated endpoint may answer. */
  errors: number[];
}

/** Reads that run no operation, in the operations' words; one that runs one takes its roles from it (access.ts). */
const READ = tokenRoles(EVERYONE);
/** Monitoring: a supervisor's token, or an observer token (an operator's, for a scraper). */
const OPERATE: TokenRole[] = ["observer", "supervisor"];
/** The supervisors' API: a supervisor token only. */
const SUPERVISE = tokenRoles(SUPERVISORS);
const OWNER_CALL_ERRORS = [400, 404, 409, 413];

// Generic in the body, and `satisfies` rather than a return type, so each entry keeps its
// own schemas' types: the typed client's methods take and answer them (lib/client).
const ownerCall = <B extends z.ZodType>(operationId: string, verb: string, summary: string, body: B) => ({
  operationId,
  method: "POST",
  path: `/tasks/{id}/${verb}`,
  summary,
  body,
  success: { status: 200, description: "The task after the call", schema: taskResponse },
  errors: OWNER_CALL_ERRORS,
}) satisfies Endpoint;

/** POST /tasks/{id}/<verb> {version, reason?}: a supervisor's decision over a task (lib/tasks/supervise/supervise.ts, release.ts). */
const supervisorCall = (operationId: string, verb: string, summary: string) => ({
  operationId,
  method: "POST",
  path: `/tasks/{id}/${verb}`,
  summary,
  body: input.superviseBody,
  success: { status: 200, description: "The task after the decision", schema: taskResponse },
  errors: OWNER_CALL_ERRORS,
}) satisfies Endpoint;

export const endpoints = {
  createTask: {
    operationId: "createTask", method: "POST", path: "/tasks", summary: "Create a task (queued, version 1)",
    body: input.createTaskInput,
    success: { status: 201, description: "The new task", schema: taskResponse },
    alsoAnswers: [{ status: 200, description: "An idempotent retry: the task an earlier create with the same idempotencyKey and fields made (no new event)", schema: taskResponse }],
    errors: [400, 404, 409, 413],
  },
  addDependencies: {
    operationId: "addDependencies", method: "POST", path: "/tasks/{id}/dependencies",
    summary: "Add dependencies to a queued task (creator, last holder or supervisor; a cycle is refused: dependency_cycle)",
    body: input.dependenciesBody,
    success: { status: 200, description: "The task after the call", schema: taskResponse }, errors: [400, 403, 404, 409, 413],
  },
  removeDependency: {
    operationId: "removeDependency", method: "DELETE", path: "/tasks/{id}/dependencies/{dep}",
    summary: "Remove one dependency from a queued task (version-fenced; creator, last holder or supervisor): a dependency_removed event",
    body: input.removeDependencyBody,
    success: { status: 200, description: "The task after the call", schema: taskResponse }, errors: [400, 403, 404, 409, 413],
  },
  taskReadiness: {
    operationId: "taskReadiness", method: "GET", path: "/tasks/{id}/readiness",
    summary: "Whether the caller could claim the task now, every reason not, and when time alone is in the way",
    session: true,
    success: { status: 200, description: "The task's readiness for the caller", schema: readinessObject }, errors: [400, 404],
  },
  taskLease: {
    operationId: "taskLease", method: "GET", path: "/tasks/{id}/lease",
    summary: "Why the task is held, or not: its lease's state, holder, renewals, progress and reason codes",
    session: true,
    success: { status: 200, description: "The task's lease", schema: leaseObject }, errors: [400, 404],
  },
  listTasks: {
    operationId: "listTasks", method: "GET", path: "/tasks",
    summary: "List tasks, keyset-paginated: filter, search (q) and sort; oldest first by default",
    roles: READ, session: true, query: listTasksQuery,
    success: { status: 200, description: "A page of tasks", schema: z.object({ tasks: z.array(taskObject), nextCursor: z.string().nullable() }) },
    errors: [400],
  },
  countTasks: {
    operationId: "countTasks", method: "GET", path: "/tasks/counts",
    summary: "Live counts: the filter's tasks per status, and every queue's per status (each stops at `cap` + 1)",
    roles: READ, session: true, query: countTasksQuery,
    success: { status: 200, description: "The counts", schema: taskCountsObject },
    errors: [400],
  },
  listReservations: {
    operationId: "listReservations", method: "GET", path: "/reservations",
    summary: "Every reservation held now: by resource, with the task that holds it, its owner and lease",
    session: true,
    success: { status: 200, description: "What is held", schema: z.object({ reservations: z.array(heldReservationObject) }) },
    errors: [],
  },
  getTask: {
    operationId: "getTask", method: "GET", path: "/tasks/{id}", summary: "One task",
    roles: READ, session: true, success: { status: 200, description: "The task", schema: taskResponse }, errors: [400, 404],
  },
  editTask: {
    operationId: "editTask", method: "PATCH", path: "/tasks/{id}",
    summary: "Edit a queued or escalated task (version-fenced; creator, last holder or supervisor); once it has been claimed, its queue, notBefore, reserves and budget only a supervisor changes",
    body: input.editTaskBody,
    success: { status: 200, description: "The task after the edit (unchanged, same version, when the edit changed nothing)", schema: taskResponse },
    errors: [400, 403, 404, 409, 413],
  },
  addComment: {
    operationId: "addComment", method: "POST", path: "/tasks/{id}/comments",
    summary: "Comment on a task: a commented event (no status or version change)",
    body: input.commentBody,
    success: { status: 201, description: "The comment, as the event it is", schema: z.object({ event: eventObject }) },
    errors: [400, 404, 413],
  },
  listTaskEvents: {
    operationId: "listTaskEvents", method: "GET", path: "/tasks/{id}/events", summary: "A task's history, oldest first",
    roles: READ, session: true, query: listEventsQuery,
    success: { status: 200, description: "A page of events", schema: z.object({ events: z.array(eventObject), nextCursor: z.string().nullable() }) },
    errors: [400, 404],
  },
  claimNext: {
    operationId: "claimNext", method: "POST", path: "/claims", summary: "Claim the next task of a queue (optionally starting it)",
    body: input.claimNextInput,
    success: { status: 200, description: "The claimed task", schema: taskResponse },
    alsoAnswers: [{ status: 204, description: "Nothing is claimable (no body): at once, or at the end of `wait`" }],
    errors: [400, 403, 413, 429],
  },
  claimBatch: {
    operationId: "claimBatch", method: "POST", path: "/claims/batch", summary: "Claim up to `limit` tasks in one transaction",
    body: input.claimBatchInput,
    success: { status: 200, description: "The claimed tasks (possibly none)", schema: z.object({ tasks: z.array(taskObject) }) },
    alsoAnswers: [{ status: 204, description: "With `wait`: nothing became claimable before the wait ended (no body)" }],
    errors: [400, 403, 413, 429],
  },
  claimTask: ownerCall("claimTask", "claim", "Claim a given task at the expected version", input.claimBody),
  startTask: ownerCall("startTask", "start", "Start a claimed task (confirmCheck for a needs_check task)", input.startBody),
  heartbeat: ownerCall("heartbeat", "heartbeat", "Renew the lease (same version)", input.heartbeatBody),
  ackTask: ownerCall("ackTask", "ack", "Acknowledge others' comments up to eventId (the holder): complete and new effect intents wait for it", ackBody),
  recordSideEffect: ownerCall("recordSideEffect", "side-effects", "Record that an external side effect begins", input.sideEffectBody),
  releaseTask: ownerCall("releaseTask", "release", "Give the task back to the queue", input.releaseBody),
  completeTask: {
    operationId: "completeTask", method: "POST", path: "/tasks/{id}/complete",
    summary: "Complete a started task; with `next`, claim the next task in the same transaction",
    body: input.completeBody, errors: OWNER_CALL_ERRORS,
    success: {
      status: 200,
      description: "The completed task; with `next` in the body, also the task claimed next (null when nothing was claimable)",
      schema: z.object({ task: taskObject, next: taskObject.nullable().optional() }),
    },
  },
  completions: {
    operationId: "completeTasks", method: "POST", path: "/completions",
    summary: "Complete up to 100 started tasks in one transaction; each item is its own guarded write",
    body: input.completionsInput,
    success: {
      status: 200,
      description: "One result per item, in the order given: the completed task, or why that item was refused",
      schema: z.object({
        results: z.array(z.union([
          z.object({ id: z.string(), ok: z.literal(true), task: taskObject }),
          z.object({ id: z.string(), ok: z.literal(false), error: errorObject.shape.error }),
        ])),
      }),
    },
    errors: [400, 413],
  },
  failTask: ownerCall("failTask", "fail", "Report a failed attempt (escalates on the last strike)", input.failBody),
  reviewTask: {
    operationId: "reviewTask", method: "POST", path: "/tasks/{id}/review",
    summary: "Approve (done) or reject (a strike: back to the queue with the note as the hand-off) an in_review task's submission; not by its submitter nor anyone who held it",
    body: input.reviewBody,
    success: { status: 200, description: "The task after the decision", schema: taskResponse },
    errors: [400, 403, 404, 409, 413],
  },
  raiseBudget: {
    operationId: "raiseBudget", method: "POST", path: "/tasks/{id}/budget",
    summary: "Supervisor: raise the budget of a task parked on it (awaiting_input, a budget question); its owner goes on with a fresh lease, the same attempt and fence",
    body: input.raiseBudgetBody,
    success: { status: 200, description: "The task after the raise (started)", schema: taskResponse },
    errors: [400, 403, 404, 409, 413],
  },
  setTokenBudget: {
    operationId: "setTokenBudget", method: "PATCH", path: "/tokens/{name}",
    summary: "Supervisor: set an agent token's monthly cap (null lifts it); at or over it this calendar month (UTC), claim-next hands the agent nothing",
    body: z.strictObject({ monthlyBudget: budget.nullable() }),
    success: {
      status: 200, description: "The token's cap after the change",
      schema: z.object({ name: z.string(), monthlyBudget: z.object({ limit: z.number(), unit: z.string() }).nullable() }),
    },
    errors: [400, 403, 404, 413],
  },
  requeueTask: supervisorCall("requeueTask", "requeue", "Supervisor: put an escalated task back in its queue, failures reset"),
  resolveTask: supervisorCall("resolveTask", "resolve", "Supervisor: settle an escalated task as done by hand"),
  cancelTask: supervisorCall("cancelTask", "cancel", "Supervisor: drop a queued or escalated task for good (what depends on it is escalated)"),
  forceReleaseTask: supervisorCall("forceReleaseTask", "force-release", "Supervisor: take a claimed or started task from its holder, back to queued (reason: the next claimant's hand-off note)"),
  releaseReservations: supervisorCall("releaseReservations", "release-reservations", "Supervisor: release what a task parked on a question reserves; it stays parked with its owner (docs/reservations.md)"),
  recordEffect: {
    operationId: "recordEffect", method: "POST", path: "/tasks/{id}/effects",
    summary: "Record an intent before acting outside the board (owner of a started task); the same key again answers the existing effect",
    body: effectBody,
    success: { status: 201, description: "The new effect (intended) and the task", schema: effectResponse },
    alsoAnswers: [{ status: 200, description: "The same key was recorded before on this task: the existing effect, its state unchanged", schema: effectResponse }],
    errors: OWNER_CALL_ERRORS,
  },
  listEffects: {
    operationId: "listEffects", method: "GET", path: "/tasks/{id}/effects",
    summary: "A task's effect ledger, oldest first",
    session: true,
    success: { status: 200, description: "Every effect of the task", schema: z.object({ effects: z.array(effectObject) }) },
    errors: [400, 404],
  },
  resolveEffect: {
    operationId: "resolveEffect", method: "POST", path: "/tasks/{id}/effects/{effectId}",
    summary: "Resolve an effect: intended → applied | failed by its attempt; unknown → applied | failed by the holder or a supervisor",
    body: resolveEffectBody,
    success: { status: 200, description: "The effect after the call and the task", schema: effectResponse },
    errors: OWNER_CALL_ERRORS,
  },
  // Checkpoints (docs/checkpoints.md): an owner write of the current attempt, and the task's steps.
  recordCheckpoint: {
    operationId: "recordCheckpoint", method: "POST", path: "/tasks/{id}/checkpoints",
    summary: "Record how far the attempt got (owner of a started task, the current attempt only): a step (1..200) and its state; a successor's claim carries the latest",
    body: checkpointBody,
    success: { status: 201, description: "The checkpoint and the task", schema: checkpointResponse },
    errors: OWNER_CALL_ERRORS,
  },
  listCheckpoints: {
    operationId: "listCheckpoints", method: "GET", path: "/tasks/{id}/checkpoints",
    summary: "A task's checkpoints, by attempt then step",
    session: true,
    success: { status: 200, description: "Every checkpoint of the task", schema: z.object({ checkpoints: z.array(checkpointObject) }) },
    errors: [400, 404],
  },
  askQuestion: {
    operationId: "askQuestion", method: "POST", path: "/tasks/{id}/questions",
    summary: "Ask a person (owner of a started task): the task becomes awaiting_input, its lease parked (no lapse, no heartbeat needed), the owner kept",
    body: askQuestionBody,
    success: { status: 201, description: "The question and the task (awaiting_input, version + 1)", schema: questionResponse },
    alsoAnswers: [{ status: 200, description: "A retry of an ask that took effect: the question it made", schema: questionResponse }],
    errors: OWNER_CALL_ERRORS,
  },
  getQuestion: {
    operationId: "getQuestion", method: "GET", path: "/tasks/{id}/questions/{questionId}",
    summary: "One question; with ?wait= (0..60 s) answers as soon as it is answered (or expires), or when the wait ends",
    session: true, query: readQuestionQuery,
    success: { status: 200, description: "The question", schema: z.object({ question: questionObject }) },
    errors: [400, 404, 429],
  },
  answerQuestion: {
    operationId: "answerQuestion", method: "POST", path: "/tasks/{id}/questions/{questionId}/answer",
    summary: "Answer a question (a person, or a supervisor token; never its asker: self_review): the task returns to started for its owner with a fresh lease",
    body: answerQuestionBody,
    success: { status: 200, description: "The answered question and the task (started, version + 1)", schema: questionResponse },
    errors: [400, 403, 404, 409, 413],
  },
  verifyFence: {
    operationId: "verifyFence", method: "POST", path: "/fences/verify",
    summary: "Check an agent's fence before acting on its request: does its attempt still hold the task, and if not, why not",
    body: verifyFenceInput,
    success: { status: 200, description: "What the fence names and whether that attempt is current", schema: fenceVerdictObject },
    errors: [400, 413],
  },
  createClaimToken: {
    operationId: "createClaimToken", method: "POST", path: "/tasks/{id}/claim-tokens",
    summary: "Mint a cbc_ token bound to this task and its current attempt, for the ops named (the owner; or a claim token narrowing itself): shown once, dead when the attempt ends",
    body: claimTokenBody,
    success: { status: 201, description: "The claim token (shown only in this answer) and what it is bound to", schema: claimTokenResponse },
    errors: [400, 404, 409, 413],
  },
  listQueues: {
    operationId: "listQueues", method: "GET", path: "/queues",
    summary: "Supervisor: every queue, archived ones too, with its settings, state, live counts by status and throughput",
    roles: SUPERVISE,
    success: { status: 200, description: "Every queue, alphabetically", schema: z.object({ queues: z.array(queueObject), cap: z.number().int() }) },
    errors: [],
  },
  createQueue: {
    operationId: "createQueue", method: "POST", path: "/queues",
    summary: "Supervisor: make a queue (name, description, settings); the only way a queue comes to exist",
    body: input.createQueueInput,
    success: { status: 201, description: "The new queue", schema: queueResponse },
    errors: [400, 413],
  },
  updateQueue: {
    operationId: "updateQueue", method: "PATCH", path: "/queues/{name}",
    summary: "Supervisor: change a queue's settings or description, pause or resume it, archive or restore it — in one transaction",
    body: input.updateQueueBody,
    success: { status: 200, description: "The queue after the change (unchanged when nothing asked for differs)", schema: queueResponse },
    errors: [400, 404, 413],
  },
  events: {
    operationId: "streamEvents", method: "GET", path: "/events",
    summary: "Server-Sent Events: every change, replayed from Last-Event-ID (or ?after=) then live",
    roles: READ, session: true, query: eventStreamQuery,
    success: {
      status: 200, contentType: "text/event-stream",
      description: "`id:` a resume cursor, `event: task`, `data:` {eventId, taskId, queue, type, actor, version, status, at}; `: keepalive` every 15 s",
    },
    errors: [400],
  },
  openapi: {
    operationId: "openapi", method: "GET", path: "/openapi.json", summary: "This document (OpenAPI 3.1)",
    roles: "public", errors: [],
    success: {
      status: 200,
      description: "The OpenAPI document",
      schema: z.looseObject({ openapi: z.literal("3.1.0"), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }),
    },
  },
  metrics: {
    operationId: "metrics", method: "GET", path: "/metrics",
    summary: "Prometheus metrics of this server process (text exposition format 0.0.4)",
    roles: OPERATE,
    success: {
      status: 200, contentType: "text/plain",
      description: "claimboard_tasks, claimboard_events_total, claimboard_conflicts_total, claimboard_claim_duration_seconds, claimboard_sse_subscribers, claimboard_listen_reconnects_total, … (see docs/insights.md)",
    },
    errors: [],
  },
  // Recurring work (docs/contract.md#recurring-work, docs/schedules.md).
  createSchedule: {
    operationId: "createSchedule", method: "POST", path: "/schedules",
    summary: "Supervisor: a cron (5 fields) in a time zone that makes a task in a queue at each occurrence",
    body: createScheduleInput,
    success: { status: 201, description: "The schedule, with its next occurrence", schema: scheduleResponse },
    errors: [400, 413],
  },
  listSchedules: {
    operationId: "listSchedules", method: "GET", path: "/schedules",
    summary: "Supervisor: the schedules by name, each with its next occurrence and last result",
    roles: SUPERVISE,
    success: { status: 200, description: "The schedules", schema: z.object({ schedules: z.array(scheduleObject) }) },
    errors: [],
  },
  updateSchedule: {
    operationId: "updateSchedule", method: "PATCH", path: "/schedules/{id}",
    summary: "Supervisor: change a schedule, pause or resume it (a resume counts from now)",
    body: updateScheduleBody,
    success: { status: 200, description: "The schedule after the change", schema: scheduleResponse },
    errors: [400, 404, 413],
  },
  deleteSchedule: {
    operationId: "deleteSchedule", method: "DELETE", path: "/schedules/{id}",
    summary: "Supervisor: delete a schedule; the tasks it made stay",
    success: { status: 200, description: "Deleted", schema: z.object({ deleted: z.uuid() }) },
    errors: [400, 404],
  },
  adoptSchedule: {
    operationId: "adoptSchedule", method: "POST", path: "/schedules/{id}/adopt",
    summary: "Supervisor: take a schedule over; it acts with your authority from now on (one paused because its maker's authority ended ticks again, from now)",
    success: { status: 200, description: "The schedule, adopted", schema: scheduleResponse },
    errors: [400, 404],
  },
  // Notifications (docs/contract.md#notifications, docs/webhooks.md): supervisors' endpoints for events.
  createWebhook: {
    operationId: "createWebhook", method: "POST", path: "/webhooks",
    summary: "Supervisor: register an endpoint for chosen event types (and queues); the signing secret is in this answer only",
    body: createWebhookInput,
    success: { status: 201, description: "The webhook and its secret (whsec_…, shown once)", schema: z.object({ webhook: webhookObject, secret: z.string() }) },
    errors: [400, 413],
  },
  listWebhooks: {
    operationId: "listWebhooks", method: "GET", path: "/webhooks",
    summary: "Supervisor: the registered webhooks, newest first (never their secrets)",
    roles: SUPERVISE,
    success: { status: 200, description: "The webhooks", schema: z.object({ webhooks: z.array(webhookObject) }) },
    errors: [],
  },
  deleteWebhook: {
    operationId: "deleteWebhook", method: "DELETE", path: "/webhooks/{id}",
    summary: "Supervisor: delete a webhook; what was still to send is not sent",
    success: { status: 200, description: "Deleted", schema: z.object({ deleted: z.uuid() }) },
    errors: [400, 404],
  },
  adoptWebhook: {
    operationId: "adoptWebhook", method: "POST", path: "/webhooks/{id}/adopt",
    summary: "Supervisor: take a webhook over; it acts with your authority from now on (one paused because its maker's authority ended delivers again, events from now)",
    success: { status: 200, description: "The webhook, adopted", schema: z.object({ webhook: webhookObject }) },
    errors: [400, 404],
  },
  listWebhookDeliveries: {
    operationId: "listWebhookDeliveries", method: "GET", path: "/webhooks/{id}/deliveries",
    summary: "Supervisor: a webhook's delivery log, newest first (status, tries, last error)",
    roles: SUPERVISE, query: listDeliveriesQuery,
    success: { status: 200, description: "A page of deliveries", schema: z.object({ deliveries: z.array(webhookDeliveryObject), nextCursor: z.string().nullable() }) },
    errors: [400, 404],
  },
  // Attention (docs/contract.md "Attention: what waits for me", docs/attention.md).
  attention: {
    operationId: "attention", method: "GET", path: "/me/attention",
    summary: "What waits for the caller: counts and items of what the engine would let them do now (questions, reviews, budgets, lapsing and lapsed leases, escalations, unknown effects)",
    session: true,
    success: { status: 200, description: "What waits for the caller", schema: attentionObject },
    errors: [],
  },
  health: {
    operationId: "health", method: "GET", path: "/health", summary: "Liveness: the server and its database",
    roles: "public",
    success: { status: 200, description: "Up: the database answers", schema: healthBody },
    alsoAnswers: [{ status: 503, description: "The database is unreachable", schema: healthBody }],
    errors: [],
  },
  // The fleet (docs/fleet.md): what /agents shows, the same on every instance.
  getFleet: {
    operationId: "getFleet", method: "GET", path: "/fleet",
    summary: "Supervisor: every agent and what it does now (working, waiting, idle or gone); observer and supervisor tokens apart",
    roles: SUPERVISE,
    success: { status: 200, description: "The fleet", schema: fleetResponse },
    errors: [],
  },
} satisfies Record<string, Endpoint>;

/** An endpoint's key in the registry: the typed client's routes and the handlers are keyed by it. */
export type EndpointId = keyof typeof endpoints;
