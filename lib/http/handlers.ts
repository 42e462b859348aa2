import "server-only";
import type { z } from "zod";
import { idle } from "@/lib/deadline";
import { databaseIsUp } from "@/lib/health";
import { collectMetrics } from "@/lib/metrics/collect";
import { PROMETHEUS_CONTENT_TYPE } from "@/lib/metrics/prometheus";
import { getHub } from "@/lib/realtime";
import { compareCursors, parseCursor } from "@/lib/realtime/cursor";
import { currentPosition } from "@/lib/realtime/feed";
import { openEventStream } from "@/lib/realtime/open-stream";
import * as engine from "@/lib/tasks";
import { COUNT_CAP, countTasks, perform, validationError, type Operation, listTaskEvents, listTasks } from "@/lib/tasks";
import { queuePath, taskPath, type superviseBody, type Task, SETTLES_QUESTION, waitUntilSettled, personStanding } from "@/lib/tasks/model";
import { adoptWebhook, createWebhook, deleteWebhook, listDeliveries, listWebhooks } from "@/lib/webhooks/ops";
import { webhookIdInput } from "@/lib/webhooks/schemas";
import { adoptSchedule, createSchedule, deleteSchedule, listSchedules, updateSchedule } from "@/lib/schedules/ops";
import { endpoints, type Endpoint, type EndpointId } from "./endpoints";
import { errorResponse } from "./errors";
import { handle, respond } from "./handler";
import { buildOpenApiDocument } from "./openapi";
import { withTransportSecurity } from "./transport";
import { HELD_RETRY_SECONDS, takeHeldPlace } from "@/lib/realtime/held-places";
import { claimShape, claimWaiting } from "./claim-wait";
import { readFleet, type FleetAgent } from "@/lib/fleet";
import { setMonthlyBudget, setMonthlyBudgetInput } from "@/lib/auth/token-admin";
import { currentUser } from "@/lib/auth/session";
import { attention } from "@/lib/attention/attention";

const tokenPath = setMonthlyBudgetInput.pick({ name: true });
import { fenced, fencedForReader, fencedRefusal, withFenceHeader } from "./fenced";

// Each endpoint of the registry joined with what it does: the engine operation or read it
// calls and the shape of its answer. The route files (lib/http/routes.ts `route`) and the
// MCP endpoint's in-process calls (app/api/mcp/in-process.ts) both serve these, so an
// endpoint is answered the same way whichever door it came in by.

/** What a route file exports per method (Next.js App Router): handle()'s answer. */
export type RouteHandler = ReturnType<typeof handle>;

/** POST /tasks/{id}/<verb>: the body plus the path's task id, one engine call, `{task}` back. */
function taskCall<S extends z.ZodType>(endpoint: Endpoint, op: Operation<S, Task>): RouteHandler {
  return handle(endpoint, async ({ run, body, params }) =>
    respond(await run(op, { ...(body as object), taskId: params.id }), (task) => ({ task })),
  );
}

/** An owner call (claim, start, heartbeat, effects, release, fail): taskCall with the caller's fence (lib/http/fenced.ts). */
function ownerCall<S extends z.ZodType>(endpoint: Endpoint, op: Operation<S, Task>): RouteHandler {
  return handle(endpoint, async ({ run, body, params, db, principal }) => {
    const result = await run(op, { ...(body as object), taskId: params.id });
    if (!result.ok) return respond(await fencedRefusal(db, result, principal?.actor.id), () => null);
    const task = await fenced(db, result.value);
    return withFenceHeader(respond({ ok: true, value: task }, (t) => ({ task: t })), task);
  });
}

type SuperviseBody = z.infer<typeof superviseBody>;

export const handlers: Record<EndpointId, RouteHandler> = {
  createTask: handle(endpoints.createTask, async ({ run, body }) => {
    const result = await run(engine.createTaskOnce, body);
    // An idempotent retry answers 200 with the task the first create made (Stripe's rule).
    return respond(result, ({ task }) => ({ task }), result.ok && !result.value.created ? 200 : 201);
  }),
  addDependencies: taskCall(endpoints.addDependencies, engine.addDependencies),
  removeDependency: handle(endpoints.removeDependency, async ({ run, body, params }) =>
    respond(await run(engine.removeDependency, { ...body, taskId: params.id, dependency: params.dep }), (task) => ({ task })),
  ),
  taskLease: handle(endpoints.taskLease, async ({ run, params }) =>
    respond(await run(engine.taskLease, { taskId: params.id }), (lease) => lease),
  ),
  taskReadiness: handle(endpoints.taskReadiness, async ({ run, params }) =>
    respond(await run(engine.taskReadiness, { taskId: params.id }), (readiness) => readiness),
  ),
  listTasks: handle(endpoints.listTasks, async ({ db, query, principal }) => {
    const page = await listTasks(db, query, principal!.actor);
    return Response.json({ tasks: page.items, nextCursor: page.nextCursor });
  }),
  countTasks: handle(endpoints.countTasks, async ({ db, query, principal }) => Response.json(await countTasks(db, query, principal!.actor))),
  listReservations: handle(endpoints.listReservations, async ({ run }) =>
    respond(await run(engine.listReservations, {}), (reservations) => ({ reservations }))),
  getTask: handle(endpoints.getTask, async ({ db, params, principal }) => {
    const id = taskPath.safeParse(params);
    if (!id.success) return errorResponse(validationError(id.error));
    const task = await engine.loadTask(db, id.data.id);
    if (!task) return errorResponse({ code: "not_found", message: `Task ${id.data.id} does not exist` });
    return Response.json({ task: await fencedForReader(db, task, principal?.actor.id) });
  }),
  /** A supervisor's token edits any task; an agent's, the tasks it created or held last (the engine's rule, docs/api.md). */
  editTask: taskCall(endpoints.editTask, engine.editTask),
  addComment: handle(endpoints.addComment, async ({ run, body, params }) =>
    respond(await run(engine.addComment, { ...body, taskId: params.id }), (event) => ({ event }), 201),
  ),
  listTaskEvents: handle(endpoints.listTaskEvents, async ({ db, params, query }) => {
    const id = taskPath.safeParse(params);
    if (!id.success) return errorResponse(validationError(id.error));
    if (!(await engine.loadTask(db, id.data.id))) return errorResponse({ code: "not_found", message: `Task ${id.data.id} does not exist` });
    const page = await listTaskEvents(db, id.data.id, query);
    return Response.json({ events: page.items, nextCursor: page.nextCursor });
  }),
  // With `wait`, held until a task it may claim is claimable (lib/http/claim-wait.ts); 204 at the wait's end.
  claimNext: handle(endpoints.claimNext, async ({ run, body, db, principal, request }) => {
    const result = await claimWaiting({
      caller: principal!.tokenId, queue: body.queue, waitSeconds: body.wait, signal: request.signal,
      attempt: () => run(engine.claimNext, body), empty: (task) => task === null, shape: claimShape("claimNext", body),
    });
    if ("refusal" in result) return result.refusal;
    if ("ended" in result || (result.ok && result.value === null)) return new Response(null, { status: 204 });
    if (!result.ok) return respond(await fencedRefusal(db, result, principal?.actor.id), () => null);
    const task = await fenced(db, result.value!);
    return withFenceHeader(respond({ ok: true, value: task }, (t) => ({ task: t })), task);
  }),
  // Several holdings: each task carries its own fence, and no header names one of them.
  claimBatch: handle(endpoints.claimBatch, async ({ run, body, db, principal, request }) => {
    const result = await claimWaiting({
      caller: principal!.tokenId, queue: body.queue, waitSeconds: body.wait, signal: request.signal,
      attempt: () => run(engine.claimBatch, body), empty: (tasks) => tasks.length === 0, shape: claimShape("claimBatch", body),
    });
    if ("refusal" in result) return result.refusal;
    if ("ended" in result) return new Response(null, { status: 204 });
    if (!result.ok) return respond(result, () => null);
    return respond({ ok: true, value: await Promise.all(result.value.map((t) => fenced(db, t))) }, (tasks) => ({ tasks }));
  }),
  claimTask: ownerCall(endpoints.claimTask, engine.claim),
  startTask: ownerCall(endpoints.startTask, engine.start),
  heartbeat: ownerCall(endpoints.heartbeat, engine.renew),
  ackTask: ownerCall(endpoints.ackTask, engine.acknowledge),
  recordSideEffect: ownerCall(endpoints.recordSideEffect, engine.recordSideEffect),
  releaseTask: ownerCall(endpoints.releaseTask, engine.release),
  // The header is the completed attempt's fence; the task claimed next carries its own in the body.
  // With next.wait the completion commits at once; only the claim of the next task waits (200, next null at the wait's end).
  completeTask: handle(endpoints.completeTask, async ({ run, body, params, db, principal, request }) => {
    const result = await run(engine.completeAndClaimNext, { ...body, taskId: params.id });
    if (!result.ok) return respond(await fencedRefusal(db, result, principal?.actor.id), () => null);
    const task = await fenced(db, result.value.task);
    let claimedNext = result.value.next;
    if (body.next?.wait && claimedNext === null) {
      const waited = await claimWaiting({
        caller: principal!.tokenId, queue: body.next.queue, waitSeconds: body.next.wait, signal: request.signal,
        attempt: () => run(engine.claimNext, body.next), empty: (next) => next === null, shape: claimShape("claimNext", body.next),
      });
      // The completion stands whatever the wait came to; a refused wait (its cap) is a next of null.
      claimedNext = "ok" in waited && waited.ok ? waited.value : null;
    }
    const next = claimedNext ? { next: await fenced(db, claimedNext) } : {};
    return withFenceHeader(respond({ ok: true, value: { ...result.value, task, ...next } }, (value) => value), task);
  }),
  completions: handle(endpoints.completions, async ({ run, body, db }) => {
    const result = await run(engine.completeMany, body);
    if (!result.ok) return respond(result, () => null);
    const results = await Promise.all(result.value.map(async (r) => (r.ok ? { ...r, task: await fenced(db, r.task) } : r)));
    return respond({ ok: true, value: results }, (value) => ({ results: value }));
  }),
  failTask: ownerCall(endpoints.failTask, engine.failTask),
  reviewTask: taskCall(endpoints.reviewTask, engine.review),
  raiseBudget: taskCall(endpoints.raiseBudget, engine.raiseBudget),
  setTokenBudget: handle(endpoints.setTokenBudget, async ({ run, body, params }) => {
    const path = tokenPath.safeParse(params);
    if (!path.success) return errorResponse(validationError(path.error));
    return respond(await run(setMonthlyBudget, { ...body, name: path.data.name }), (value) => value);
  }),
  recordEffect: handle(endpoints.recordEffect, async ({ run, body, params, db, principal }) => {
    const result = await run(engine.recordEffect, { ...body, taskId: params.id });
    if (!result.ok) return respond(await fencedRefusal(db, result, principal?.actor.id), () => null);
    const task = await fenced(db, result.value.task);
    return withFenceHeader(respond({ ok: true, value: { effect: result.value.effect, task } }, (v) => v, result.value.created ? 201 : 200), task);
  }),
  listEffects: handle(endpoints.listEffects, async ({ run, params }) =>
    respond(await run(engine.taskEffectsList, { taskId: params.id }), (effects) => ({ effects })),
  ),
  resolveEffect: handle(endpoints.resolveEffect, async ({ run, body, params, db, principal }) => {
    const result = await run(engine.resolveEffect, { ...body, taskId: params.id, effectId: params.effectId });
    if (!result.ok) return respond(await fencedRefusal(db, result, principal?.actor.id), () => null);
    const task = await fencedForReader(db, result.value.task, principal?.actor.id);
    return withFenceHeader(respond({ ok: true, value: { effect: result.value.effect, task } }, (v) => v), task);
  }),
  recordCheckpoint: handle(endpoints.recordCheckpoint, async ({ run, body, params, db, principal }) => {
    const result = await run(engine.recordCheckpoint, { ...body, taskId: params.id });
    if (!result.ok) return respond(await fencedRefusal(db, result, principal?.actor.id), () => null);
    const task = await fenced(db, result.value.task);
    return withFenceHeader(respond({ ok: true, value: { checkpoint: result.value.checkpoint, task } }, (v) => v, 201), task);
  }),
  listCheckpoints: handle(endpoints.listCheckpoints, async ({ run, params }) =>
    respond(await run(engine.taskCheckpointsList, { taskId: params.id }), (checkpoints) => ({ checkpoints })),
  ),
  // Asking a person (docs/questions.md). The ask is an owner call (its fence in the answer); the
  // read long-polls on the process's LISTEN hub; the answer is a person's (or a supervisor token's).
  askQuestion: handle(endpoints.askQuestion, async ({ run, body, params, db, principal }) => {
    const result = await run(engine.askQuestion, { ...body, taskId: params.id });
    if (!result.ok) return respond(await fencedRefusal(db, result, principal?.actor.id), () => null);
    const task = await fenced(db, result.value.task);
    return withFenceHeader(respond({ ok: true, value: { question: result.value.question, task } }, (v) => v, result.value.created ? 201 : 200), task);
  }),
  getQuestion: handle(endpoints.getQuestion, async ({ run, params, query, principal }) => {
    const read = () => run(engine.getQuestion, { taskId: params.id!, questionId: params.questionId! });
    const wait = query?.wait ?? 0;
    if (wait === 0) return respond(await read(), (question) => ({ question }));
    // A held request: counted under its caps (lib/realtime/held-places.ts), 429 beyond them.
    const place = takeHeldPlace("question wait", principal!.tokenId);
    if ("refused" in place) return errorResponse({ code: "rate_limited", message: place.refused, retryAfterSeconds: HELD_RETRY_SECONDS });
    try {
      const hub = await getHub();
      const watch = (taskId: string, wake: () => void) => hub.tap((events) => {
        if (events.some((e) => e.taskId === taskId && SETTLES_QUESTION.has(e.type))) wake();
      });
      // The sleeps between reads are no database call: the request's deadline stops for them.
      return respond(await waitUntilSettled(params.id!, wait, read, watch, idle), (question) => ({ question }));
    } finally {
      place.release();
    }
  }),
  answerQuestion: handle(endpoints.answerQuestion, async ({ run, body, params, db, principal }) => {
    const result = await run(engine.answerQuestion, { ...body, taskId: params.id, questionId: params.questionId });
    if (!result.ok) return respond(result, () => null);
    const task = await fencedForReader(db, result.value.task, principal?.actor.id);
    return respond({ ok: true, value: { question: result.value.question, task } }, (v) => v);
  }),
  // The caller's agent token is what the new token acts as; a claim token narrowing itself passes its own scope.
  createClaimToken: handle(endpoints.createClaimToken, async ({ run, body, params, principal }) => {
    const claim = principal!.claim;
    const narrowing = claim ? { narrowing: { id: claim.id, ops: claim.ops } } : {};
    const made = await run(engine.createClaimToken, { ...body, taskId: params.id, agentTokenId: principal!.tokenId, ...narrowing });
    return respond(made, (value) => value, 201);
  }),
  verifyFence: handle(endpoints.verifyFence, async ({ run, body }) => respond(await run(engine.verifyFence, body), (verdict) => verdict)),
  // Supervisor tokens only (the endpoints' roles): the inbox's decisions, over the API.
  requeueTask: taskCall(endpoints.requeueTask, engine.requeue),
  resolveTask: taskCall(endpoints.resolveTask, engine.resolve),
  cancelTask: taskCall(endpoints.cancelTask, engine.cancel),
  /**
   * Take a held task back, as the board's force-release does. The `reason` becomes the
   * task's hand-off note, so whoever claims it next reads why (docs/api.md); the rule
   * itself is forceRelease's (lib/tasks/holding/release.ts).
   */
  forceReleaseTask: handle(endpoints.forceReleaseTask, async ({ run, body, params }) => {
    const { version, reason } = body as SuperviseBody;
    const handoff = reason?.trim() ? { summary: reason.trim() } : undefined;
    return respond(await run(engine.forceRelease, { taskId: params.id, version, ...(handoff ? { handoff } : {}) }), (task) => ({ task }));
  }),
  releaseReservations: taskCall(endpoints.releaseReservations, engine.releaseReservations),
  // Supervisor tokens only: queues are made on purpose, here or on /queues.
  listQueues: handle(endpoints.listQueues, async ({ db }) =>
    Response.json({ queues: await engine.listQueues(db), cap: COUNT_CAP }, { headers: { "Cache-Control": "no-store" } }),
  ),
  createQueue: handle(endpoints.createQueue, async ({ run, body, db }) => {
    const made = await run(engine.createQueue, body);
    if (!made.ok) return respond(made, () => null);
    return respond({ ok: true, value: (await engine.readQueueSummary(db, made.value.name))! }, (queue) => ({ queue }), 201);
  }),
  /** Settings, description, paused, archived — one transaction (lib/tasks/queues/update-queue.ts). */
  updateQueue: handle(endpoints.updateQueue, async ({ run, body, params, db }) => {
    const path = queuePath.safeParse(params);
    if (!path.success) return errorResponse(validationError(path.error));
    const changed = await run(engine.updateQueue, { ...body, queue: path.data.name });
    if (!changed.ok) return respond(changed, () => null);
    return respond({ ok: true, value: (await engine.readQueueSummary(db, path.data.name))! }, (queue) => ({ queue }));
  }),
  createSchedule: handle(endpoints.createSchedule, async ({ run, body }) => respond(await run(createSchedule, body), (schedule) => ({ schedule }), 201)),
  listSchedules: handle(endpoints.listSchedules, async ({ db }) =>
    Response.json({ schedules: await listSchedules(db) }, { headers: { "Cache-Control": "no-store" } }),
  ),
  updateSchedule: handle(endpoints.updateSchedule, async ({ run, body, params }) =>
    respond(await run(updateSchedule, { ...(body as object), id: params.id }), (schedule) => ({ schedule })),
  ),
  deleteSchedule: handle(endpoints.deleteSchedule, async ({ run, params }) => respond(await run(deleteSchedule, { id: params.id }), (gone) => gone)),
  adoptSchedule: handle(endpoints.adoptSchedule, async ({ run, params }) => respond(await run(adoptSchedule, { id: params.id }), (schedule) => ({ schedule }))),
  createWebhook: handle(endpoints.createWebhook, async ({ run, body }) => respond(await run(createWebhook, body), (made) => made, 201)),
  listWebhooks: handle(endpoints.listWebhooks, async ({ db }) =>
    Response.json({ webhooks: await listWebhooks(db) }, { headers: { "Cache-Control": "no-store" } }),
  ),
  deleteWebhook: handle(endpoints.deleteWebhook, async ({ run, params }) => respond(await run(deleteWebhook, { id: params.id }), (gone) => gone)),
  adoptWebhook: handle(endpoints.adoptWebhook, async ({ run, params }) => respond(await run(adoptWebhook, { id: params.id }), (webhook) => ({ webhook }))),
  listWebhookDeliveries: handle(endpoints.listWebhookDeliveries, async ({ db, query, params }) => {
    const id = webhookIdInput.safeParse({ id: params.id });
    if (!id.success) return errorResponse(validationError(id.error));
    const page = await listDeliveries(db, { ...query, id: id.data.id });
    if (!page) return errorResponse({ code: "not_found", message: `No webhook ${id.data.id}` });
    return Response.json(page, { headers: { "Cache-Control": "no-store" } });
  }),
  // A reconnecting EventSource keeps its original URL, so Last-Event-ID wins over ?after=.
  events: handle(endpoints.events, async ({ request, query, db, principal }) => {
    const header = request.headers.get("last-event-id");
    const raw = header ?? query.after;
    const after = raw === undefined ? null : parseCursor(raw);
    if (raw !== undefined && !after) {
      return errorResponse({ code: "invalid_request", message: "Last-Event-ID must be a cursor this stream sent (the id: line of one of its events)", field: "Last-Event-ID" });
    }
    // Every cursor this server hands out is at or behind the feed's position now; one ahead
    // of it (made up, or from another database) would get a stream that never says anything.
    if (after && compareCursors(after, await currentPosition(db)) > 0) {
      return errorResponse({ code: "invalid_request", message: "Last-Event-ID is ahead of the event stream: not a cursor it handed out", field: "Last-Event-ID" });
    }
    const hub = await getHub();
    return openEventStream(hub, principal!, { queue: query.queue, taskId: query.task }, after, request);
  }),
  /** No auth, the same for every caller, so caches may keep it a minute. */
  openapi: handle(endpoints.openapi, async () =>
    Response.json(buildOpenApiDocument(), { headers: { "Cache-Control": "public, max-age=60" } }),
  ),
  // The hub starts with the server (its lapse clock, instrumentation.ts); a server run without one starts it here.
  metrics: handle(endpoints.metrics, async ({ db }) => {
    const hub = await getHub().catch(() => null);
    return new Response(await collectMetrics(db, hub?.stats ?? null), {
      headers: { "Content-Type": PROMETHEUS_CONTENT_TYPE, "Cache-Control": "no-store" },
    });
  }),
  getFleet: handle(endpoints.getFleet, async ({ db }) => {
    const fleet = await readFleet(db);
    const wire = (a: FleetAgent) => ({
      actor: { id: a.actor.id, name: a.actor.name }, state: a.state, waiting: a.waiting, seenUntil: a.seenUntil, heldCount: a.heldCount,
      lastSeen: a.lastSeen, tokens: a.tokens.map((t) => ({ name: t.name, role: t.role, revoked: t.revokedAt !== null })),
    });
    return Response.json({ agents: fleet.agents.map(wire), apart: fleet.apart.map(wire), truncated: fleet.truncated }, { headers: { "Cache-Control": "no-store" } });
  }),
  // A session is a person in their own standing here (the API treats a session as an observer
  // elsewhere): what waits for them is what they, as staff or a supervisor, may do.
  attention: handle(endpoints.attention, async ({ run, db, principal }) => {
    const person = principal!.tokenId.startsWith("session:") ? await currentUser() : null;
    const result = person
      ? await perform(attention, {}, { db, actor: person.actor, standing: personStanding(person.role) })
      : await run(attention, {});
    return respond(result, (value) => value);
  }),
  /** Liveness for load balancers and the CLI: no auth, never cached; a down database is its answer (200 or 503), not an error. */
  health: async (request) => {
    const up = await databaseIsUp();
    const answer = Response.json(up ? { ok: true, db: "up" } : { ok: false, db: "down" }, {
      status: up ? 200 : 503,
      headers: { "Cache-Control": "no-store" },
    });
    return withTransportSecurity(request, answer);
  },
};
