import { z } from "zod";
import { eventStreamQuery } from "@/lib/realtime/query";
import * as input from "@/lib/tasks/model";
import { createWebhookInput, listDeliveriesQuery } from "@/lib/webhooks/schemas";
import { createScheduleInput, updateScheduleBody } from "@/lib/schedules/schemas";
import { healthBody, queueObject, queueResponse, attentionObject, scheduleObject, scheduleResponse, webhookDeliveryObject, webhookObject } from "../wire";
import { fleetResponse } from "../fleet-wire";
import { type Endpoint, READ, OPERATE, SUPERVISE } from "./shape";

// Running the board: queues, the stream, the document, metrics, schedules, webhooks,
// attention, health and the fleet.
export const operateEndpoints = {
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
