import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freePort } from "@/db/embedded";
import { createAgentToken } from "@/lib/auth/tokens";
import { endpoints } from "@/lib/http/endpoints";
import { holdRowLock } from "@/test/clients";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { startServer, type TestServer } from "@/test/server";
import { ClaimboardApiError, ClaimboardClient, type Task } from "./client";

// The client against the real server (`next start`, real PostgreSQL): every method once,
// the error shapes, and every request it sends is one of the server's endpoints (its routes
// and wire types against the registry: lib/client/routes.test.ts).

/** Endpoints the client leaves to other tools: the OpenAPI document, the SSE stream, the Prometheus text. */
const NOT_JSON = ["openapi", "streamEvents", "metrics"];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The server's endpoint whose method and path template match a request, if any. */
function endpointFor(method: string, pathname: string) {
  return Object.values(endpoints).find((e) => {
    const template = new RegExp(`^/api/v1${e.path.replace(/\{\w+\}/g, "[^/]+").replace(/\./g, "\\.")}$`);
    return e.method === method && template.test(pathname);
  });
}

/** A new task of its own queue, claimed and started. */
async function startedOne(client: ClaimboardClient): Promise<Task> {
  await client.createTask({ title: "one more", queue: "client-one" });
  return (await client.claimNext({ queue: "client-one", start: true }))!;
}

describe("ClaimboardClient against a real server", () => {
  let database: TestDatabase;
  let server: TestServer;
  let client: ClaimboardClient;
  let observer: ClaimboardClient;
  let supervisor: ClaimboardClient;
  const requests: string[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    const agent = await createAgentToken(database.db, { name: "client-test" });
    const watcher = await createAgentToken(database.db, { name: "watcher", role: "observer" });
    // The queues the tests work in, made as a supervisor would (queues exist only on purpose).
    for (const queue of ["client", "client-one", "client-loop", "client-elsewhere", "client-edit", "graph", "errors", "nothing-here", "client-budget", "client-reserve"]) await makeQueue(database.db, queue);
    server = await startServer(database.url);
    const recording: typeof fetch = (input, init) => {
      requests.push(`${init?.method ?? "GET"} ${new URL(input instanceof Request ? input.url : input).pathname}`);
      return fetch(input, init);
    };
    client = new ClaimboardClient({ baseUrl: server.url, token: agent.token, fetch: recording });
    observer = new ClaimboardClient({ baseUrl: `${server.url}/api/v1/`, token: watcher.token });
    const boss = await createAgentToken(database.db, { name: "boss", role: "supervisor" });
    supervisor = new ClaimboardClient({ baseUrl: server.url, token: boss.token, fetch: recording });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.close();
  });

  test("health, create, get, list", async () => {
    expect(await client.health()).toEqual({ ok: true, db: "up" });
    const created = await client.createTask({ title: "one", queue: "client", priority: 3, payload: { n: 1 }, description: "first" });
    expect(created).toMatchObject({ title: "one", queue: "client", priority: 3, payload: { n: 1 }, description: "first", status: "queued", version: 1, owner: null, leaseUntil: null });
    expect(created.createdAt).toMatch(ISO);
    expect(await client.getTask(created.id)).toEqual(created);
    await client.createTask({ title: "two", queue: "client" });

    const page = await client.listTasks({ queue: "client", limit: 1 });
    expect(page.tasks.map((t) => t.title)).toEqual(["one"]);
    expect(page.nextCursor).toBe(created.id);
    const rest = await observer.listTasks({ queue: "client", cursor: page.nextCursor! });
    expect(rest).toMatchObject({ tasks: [{ title: "two" }], nextCursor: null });
    // Search (the last word a prefix, here of the description's "first"), sort, and the counts.
    expect((await client.listTasks({ queue: "client", q: "fir", sort: "created" })).tasks.map((t) => t.title)).toEqual(["one"]);
    expect((await client.countTasks({ queue: "client" })).statuses).toMatchObject({ queued: 2, done: 0 });
  });

  test("claimNext (null on 204), heartbeat, side effect, complete, events", async () => {
    expect(await client.claimNext({ queue: "nothing-here" })).toBeNull();
    const claimed = (await client.claimNext({ queue: "client", start: true, leaseSeconds: 30 }))!;
    expect(claimed).toMatchObject({ title: "one", status: "started", owner: { name: "client-test", kind: "agent" } });
    expect(claimed.leaseUntil).toMatch(ISO);

    const renewed = await client.heartbeat(claimed, { progress: { pct: 50 } });
    expect(renewed.version).toBe(claimed.version);
    expect(Date.parse(renewed.leaseUntil!)).toBeGreaterThanOrEqual(Date.parse(claimed.leaseUntil!));
    const marked = await client.recordSideEffect(renewed, "sent the report");
    const done = await client.complete(marked, { result: { ok: true } });
    expect(done).toMatchObject({ status: "done", version: claimed.version + 1 });

    const { events, nextCursor } = await client.listTaskEvents(done.id);
    expect(nextCursor).toBeNull();
    expect(events.map((e) => e.type)).toEqual(["created", "claimed", "heartbeat", "side_effect", "completed"]);
    expect(events[1]).toMatchObject({ actor: { name: "client-test", kind: "agent" }, payload: { started: true, version: claimed.version } });
    const first = await client.listTaskEvents(done.id, { limit: 2 });
    const after = await client.listTaskEvents(done.id, { after: first.nextCursor!, limit: 100 });
    expect([...first.events, ...after.events]).toEqual(events);
  });

  test("claimBatch, start, fail, release, claimTask", async () => {
    await client.createTask({ title: "three", queue: "client" });
    const batch = await client.claimBatch({ queue: "client", limit: 5 });
    expect(batch.map((t) => [t.title, t.status])).toEqual([["two", "claimed"], ["three", "claimed"]]);

    const started = await client.start(batch[0]!);
    expect(started.status).toBe("started");
    const failed = await client.fail(started, "could not reach the printer");
    expect(failed).toMatchObject({ status: "queued", failureCount: 1, owner: null });

    const released = await client.release(batch[1]!);
    expect(released).toMatchObject({ status: "queued", owner: null });
    const reclaimed = await client.claimTask(released);
    expect(reclaimed).toMatchObject({ status: "claimed", version: released.version + 1, owner: { name: "client-test" } });
  });

  test("verifyFence: the holder's fence is current until the attempt ends; a forged one is a 400 naming fence", async () => {
    await client.createTask({ title: "fenced", queue: "client-one" });
    const held = (await client.claimNext({ queue: "client-one" }))!;
    expect(held.fence).toMatch(/^cbf_/);
    expect(await observer.verifyFence(held.fence!)).toEqual({
      current: true, taskId: held.id, attempt: held.attempt, currentAttempt: held.attempt, status: "claimed", reason: "current",
    });
    expect((await observer.getTask(held.id)).fence).toBeNull(); // the holder's only
    const released = await client.release(held);
    expect(released.fence).toBe(held.fence); // the fence of the attempt the call ended
    expect(await client.verifyFence(held.fence!)).toMatchObject({ current: false, reason: "released" });
    const forged = await observer.verifyFence(held.fence!.slice(0, -2)).catch((e: unknown) => e);
    expect(forged).toBeInstanceOf(ClaimboardApiError);
    expect(forged).toMatchObject({ status: 400, code: "invalid_request", field: "fence" });
  });

  test("the effect ledger: recordEffect (the same key again answers it), listEffects, resolveEffect", async () => {
    await client.createTask({ title: "ledger", queue: "client-one" });
    const held = (await client.claimNext({ queue: "client-one", start: true }))!;
    const first = await client.recordEffect(held, { name: "charge", key: "order-1", detail: { cents: 5 } });
    expect(first.effect).toMatchObject({ name: "charge", key: "order-1", state: "intended", attempt: held.attempt, detail: { cents: 5 } });
    expect(first.task.openEffects.map((e) => e.id)).toEqual([first.effect.id]);
    expect((await client.recordEffect(held, { name: "charge", key: "order-1" })).effect.id).toBe(first.effect.id);
    expect((await client.listEffects(held.id)).map((e) => e.idempotencyKey)).toEqual([first.effect.idempotencyKey]);
    const resolved = await client.resolveEffect(first.task, first.effect.id, { state: "applied", externalRef: "ch_9" });
    expect(resolved.effect).toMatchObject({ state: "applied", externalRef: "ch_9" });
    expect(resolved.task.openEffects).toEqual([]);
    // A checkpoint of the same attempt: the task carries it; the list has it.
    const checkpointed = await client.checkpoint(resolved.task, 1, { charged: "ch_9" });
    expect(checkpointed.checkpoint).toMatchObject({ step: 1, state: { charged: "ch_9" }, attempt: held.attempt });
    expect(checkpointed.task).toMatchObject({ version: resolved.task.version, checkpoint: { step: 1 } });
    expect((await client.listCheckpoints(held.id)).map((c) => c.step)).toEqual([1]);
  });

  test("reservations: a created task's reserves, held while it is, in listReservations", async () => {
    const made = await client.createTask({ title: "reserving", queue: "client-one", priority: 100, reserves: [{ resource: "client/src/**", mode: "exclusive" }] });
    expect(made.reserves).toEqual([{ resource: "client/src/**", mode: "exclusive" }]);
    expect((await client.listReservations()).filter((r) => r.taskId === made.id)).toEqual([]);
    const held = (await client.claimNext({ queue: "client-one" }))!;
    expect(held.id).toBe(made.id);
    expect((await client.listReservations()).filter((r) => r.taskId === made.id)).toMatchObject([{ resource: "client/src/**", mode: "exclusive", owner: { id: held.owner!.id } }]);
    await client.release(held);
  });

  test("attention: what waits for the token's actor, every kind counted", async () => {
    const before = await client.attention();
    expect(Object.keys(before.counts).sort()).toEqual(["budgets", "effects", "escalated", "lapsed", "lapsing", "questions", "reviews"]);
    expect(before.counts.questions).toBe(0); // an agent answers no question
    expect(before.items.every((i) => typeof i.taskId === "string" && typeof i.since === "string")).toBe(true);
  });

  test("review: a completion in a reviewed queue waits; the submitter is refused (self_review); another approves it", async () => {
    expect(await supervisor.createQueue({ name: "client-review", review: "everyone" })).toMatchObject({ review: "everyone" });
    await client.createTask({ title: "reviewed", queue: "client-review" });
    const started = (await client.claimNext({ queue: "client-review", start: true }))!;
    const submitted = await client.complete(started, { result: { b: 2, a: 1 } });
    expect(submitted).toMatchObject({ status: "in_review", submission: { result: { a: 1, b: 2 }, by: { name: "client-test" }, attempt: 1 } });
    const refused = await client.review(submitted, "approve", submitted.submission!.digest).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: "self_review" });
    const approved = await supervisor.review(submitted, "approve", submitted.submission!.digest, { note: "fine" });
    expect(approved).toMatchObject({ status: "done", version: submitted.version + 1 });
  });

  test("asking a person: askQuestion parks the task, getQuestion long-polls, a supervisor's answerQuestion wakes it", async () => {
    const held = await startedOne(client);
    const asked = await client.askQuestion(held, { question: "Which colour?", choices: ["red", "blue"] });
    expect(asked.task).toMatchObject({ status: "awaiting_input", version: held.version + 1, leaseUntil: null });
    expect(asked.question).toMatchObject({ question: "Which colour?", choices: ["red", "blue"], answer: null, kind: "agent" });
    expect(asked.question.askedAt).toMatch(ISO);
    const waiting = client.getQuestion(held.id, asked.question.id, { wait: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answered = await supervisor.answerQuestion(held.id, asked.question.id, { text: "blue", choice: "blue" });
    expect(answered.task).toMatchObject({ status: "started", version: asked.task.version + 1 });
    expect((await waiting).answer).toMatchObject({ text: "blue", choice: "blue" });
    const again = await supervisor.answerQuestion(held.id, asked.question.id, { text: "red" }).catch((e: unknown) => e);
    expect(again).toMatchObject({ status: 409, code: "invalid_transition" });
  });

  test("a supervisor's releaseReservations frees what a task parked on a question reserves", async () => {
    await client.createTask({ title: "reserves and asks", queue: "client-reserve", reserves: [{ resource: "client-reserve/**", mode: "exclusive" }] });
    const held = (await client.claimNext({ queue: "client-reserve", start: true }))!;
    const asked = await client.askQuestion(held, { question: "Go on?" });
    const released = await supervisor.releaseReservations(asked.task, "blocking others");
    expect(released).toMatchObject({ status: "awaiting_input", reserves: [], version: asked.task.version + 1 });
  });

  test("budgets: a heartbeat's spend parks the task at its budget, raiseBudget resumes it; setTokenBudget caps the agent", async () => {
    await client.createTask({ title: "metered", queue: "client-budget", budget: { limit: 10, unit: "tokens" } });
    const held = (await client.claimNext({ queue: "client-budget", start: true }))!;
    expect(held).toMatchObject({ budget: { limit: 10, unit: "tokens" }, spent: 0 });
    const parked = await client.heartbeat(held, { spend: 10 });
    expect(parked).toMatchObject({ status: "awaiting_input", spent: 10, version: held.version + 1 });
    const raised = await supervisor.raiseBudget(parked, 5);
    expect(raised).toMatchObject({ status: "started", budget: { limit: 15, unit: "tokens" }, attempt: held.attempt });
    expect(await client.heartbeat(raised, { spend: 1 })).toMatchObject({ status: "started", spent: 11, fence: held.fence });
    expect(await supervisor.setTokenBudget("client-test", { limit: 1000, unit: "tokens" })).toEqual({ name: "client-test", monthlyBudget: { limit: 1000, unit: "tokens" } });
    expect(await supervisor.setTokenBudget("client-test", null)).toEqual({ name: "client-test", monthlyBudget: null });
  });

  test("createClaimToken: a client on the claim token works the task as its owner, and only that task", async () => {
    await client.createTask({ title: "scoped", queue: "client-one" });
    const held = (await client.claimNext({ queue: "client-one", start: true }))!;
    const made = await client.createClaimToken(held, ["read", "progress", "complete"]);
    expect(made).toMatchObject({ taskId: held.id, attempt: held.attempt, ops: ["read", "progress", "complete"] });
    const worker = new ClaimboardClient({ baseUrl: server.url, token: made.claimToken });
    const beat = await worker.heartbeat(held);
    expect(beat.owner?.name).toBe("client-test");
    const refused = await worker.recordEffect(beat, { name: "charge" }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: "op_not_allowed" });
    const other = await worker.listTasks({}).catch((e: unknown) => e);
    expect(other).toMatchObject({ status: 403, code: "wrong_task" });
    expect((await worker.complete(beat)).status).toBe("done");
    expect(await worker.getTask(held.id).catch((e: unknown) => e)).toMatchObject({ status: 401, code: "claim_ended" });
  });

  test("completeAndClaimNext and completeMany: the agent loop's calls", async () => {
    for (const title of ["loop-1", "loop-2", "loop-3", "loop-4"]) await client.createTask({ title, queue: "client-loop" });
    const first = (await client.claimNext({ queue: "client-loop", start: true }))!;
    const { task, next } = await client.completeAndClaimNext(first, { queue: "client-loop", start: true }, { result: { n: 1 } });
    expect(task).toMatchObject({ id: first.id, status: "done" });
    expect(next).toMatchObject({ title: "loop-2", status: "started", owner: { name: "client-test" } });

    const more = await client.claimBatch({ queue: "client-loop", limit: 5, start: true });
    expect(more.map((t) => t.title)).toEqual(["loop-3", "loop-4"]);
    const queued = await client.createTask({ title: "not started", queue: "client-elsewhere" });
    const results = await client.completeMany([next!, ...more.map((t) => ({ ...t, result: { batch: true } })), queued]);
    expect(results.map((r) => (r.ok ? r.task.status : r.error.code))).toEqual(["done", "done", "done", "invalid_transition"]);
    expect(await client.completeAndClaimNext((results[0] as { task: Task }).task, { queue: "client-loop" }).catch((e: ClaimboardApiError) => e.code)).toBe("invalid_transition");
    expect((await client.completeAndClaimNext(await startedOne(client), { queue: "client-loop" })).next).toBeNull();
  });

  test("the work graph: dependsOn, addDependencies, readiness, an idempotent create", async () => {
    const parent = await client.createTask({ title: "parent", queue: "graph" });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const child = await client.createTask({ title: "child", queue: "graph", dependsOn: [parent.id], notBefore: later, idempotencyKey: "child-1" });
    expect(child).toMatchObject({ dependsOn: [parent.id], blockedBy: [parent.id], notBefore: later });
    expect(await client.createTask({ title: "child", queue: "graph", dependsOn: [parent.id], notBefore: later, idempotencyKey: "child-1" })).toEqual(child);
    const other = await client.createTask({ title: "other", queue: "graph" });
    const more = await client.addDependencies(child, [other.id]);
    expect(more).toMatchObject({ version: 2, dependsOn: [parent.id, other.id].sort(), blockedBy: [parent.id, other.id].sort() });
    const readiness = await client.readiness(child.id);
    expect(readiness).toMatchObject({ claimable: false, claimableAt: null });
    expect(readiness.reasons.map((r) => r.code)).toEqual(["blocked", "blocked", "not_before"]);
    expect(await client.listTasks({ dependsOn: parent.id })).toMatchObject({ tasks: [{ id: child.id }] });
    const cycle = await client.addDependencies(parent, [child.id]).catch((e: unknown) => e as ClaimboardApiError);
    expect(cycle).toMatchObject({ status: 409, code: "dependency_cycle", field: "dependsOn" });
    const fewer = await client.removeDependency(more, other.id);
    expect(fewer).toMatchObject({ version: 3, dependsOn: [parent.id], blockedBy: [parent.id] });
    const stale = await client.removeDependency(more, parent.id).catch((e: unknown) => e as ClaimboardApiError);
    expect(stale).toMatchObject({ status: 409, code: "version_conflict" });
  });

  test("editTask and addComment: version-fenced edit, a comment as an event", async () => {
    const task = await client.createTask({ title: "inspectoins", queue: "client-edit" });
    const edited = await client.editTask(task, { title: "inspections", payload: { site: 7 } });
    expect(edited).toMatchObject({ title: "inspections", payload: { site: 7 }, version: 2 });
    const stale = await client.editTask(task, { title: "again" }).catch((e: unknown) => e as ClaimboardApiError);
    expect(stale).toMatchObject({ status: 409, code: "version_conflict", task: { title: "inspections", version: 2 } });
    const comment = await client.addComment(task.id, "site 7 has two gates");
    expect(comment).toMatchObject({ taskId: task.id, type: "commented", payload: { body: "site 7 has two gates" }, actor: { name: "client-test" } });
    expect(comment.createdAt).toMatch(ISO);
  });

  test("lease and ack: a supervisor's comment is unread for the holder until acknowledged (docs/leases.md)", async () => {
    await supervisor.createQueue({ name: "client-input" });
    await client.createTask({ title: "refund", queue: "client-input" });
    const held = (await client.claimNext({ queue: "client-input", start: true }))!;
    const said = await supervisor.addComment(held.id, "credit instead");
    expect(await client.lease(held.id)).toMatchObject({ state: "held", holder: { name: "client-test" }, reasons: ["held", "unread_input"] });
    const refused = await client.complete(held).catch((e: unknown) => e as ClaimboardApiError);
    expect(refused).toMatchObject({ status: 409, code: "unread_human_input", task: { unread: [{ eventId: said.id, text: "credit instead" }] } });
    expect(await client.ack(held, said.id)).toMatchObject({ unread: [] });
    expect(await client.complete(held)).toMatchObject({ status: "done" });
  });

  test("a supervisor's calls: queues made, listed, changed and archived; requeue, resolve, cancel, force-release", async () => {
    const made = await supervisor.createQueue({ name: "client-boss", description: "The boss's queue", maxFailures: 1 });
    expect(made).toMatchObject({ name: "client-boss", description: "The boss's queue", maxFailures: 1, paused: false, archivedAt: null, counts: { queued: 0 } });
    const work = async (title: string) => {
      await client.createTask({ title, queue: "client-boss" });
      return (await client.claimNext({ queue: "client-boss", start: true }))!;
    };
    const failed = await client.fail(await work("fails"), "broken");
    expect(await supervisor.requeue(failed, "fixed upstream")).toMatchObject({ status: "queued", failureCount: 0 });
    const again = await client.fail((await client.claimNext({ queue: "client-boss" }))!, "broken again");
    expect(await supervisor.resolve(again)).toMatchObject({ status: "done" });
    const held = await work("held");
    expect(await supervisor.forceRelease(held, "stuck for an hour")).toMatchObject({ status: "queued", owner: null, handoff: { summary: "stuck for an hour" } });
    expect(await supervisor.cancel((await client.getTask(held.id)))).toMatchObject({ status: "cancelled" });

    const listed = (await supervisor.listQueues()).queues.find((q) => q.name === "client-boss")!;
    expect(listed.counts).toMatchObject({ done: 1, cancelled: 1, queued: 0 });
    expect(listed.throughput.lastHour).toBe(1);
    expect(await supervisor.updateQueue("client-boss", { paused: true, leaseSeconds: 30 })).toMatchObject({ paused: true, leaseSeconds: 30 });
    expect((await supervisor.updateQueue("client-boss", { archived: true })).archivedAt).toMatch(ISO);
    const refused = (promise: Promise<unknown>) => promise.then(() => null, (e: unknown) => e as ClaimboardApiError);
    expect(await refused(client.createTask({ title: "late", queue: "client-boss" }))).toMatchObject({ status: 400, code: "invalid_request", field: "queue" });
    expect(await refused(client.listQueues())).toMatchObject({ status: 403, code: "forbidden" });

    // The fleet: supervisors only.
    expect(Array.isArray((await supervisor.getFleet()).agents)).toBe(true);
    expect(await refused(client.getFleet())).toMatchObject({ status: 403, code: "forbidden" });

    // Schedules: made, listed, paused, adopted, deleted.
    const schedule = await supervisor.createSchedule({ name: "client nightly", cron: "0 2 * * *", timezone: "Europe/Berlin", queue: "client-boss-2", task: { title: "nightly" } }).catch((e: unknown) => e as ClaimboardApiError);
    expect(schedule).toMatchObject({ status: 400, code: "invalid_request", field: "queue" }); // no such queue
    const nightly = await supervisor.createSchedule({ name: "client nightly", cron: "0 2 * * *", timezone: "Europe/Berlin", queue: "client", task: { title: "nightly" } });
    expect(nightly).toMatchObject({ name: "client nightly", timezone: "Europe/Berlin", paused: false, overlap: "skip", missed: "skip" });
    expect(nightly.nextAt).toMatch(ISO);
    expect((await supervisor.listSchedules()).map((s) => s.id)).toContain(nightly.id);
    expect(await supervisor.updateSchedule(nightly.id, { paused: true })).toMatchObject({ paused: true, nextAt: null });
    expect(await supervisor.adoptSchedule(nightly.id)).toMatchObject({ id: nightly.id, authorityEndedAt: null });
    await supervisor.deleteSchedule(nightly.id);
    expect(await refused(supervisor.deleteSchedule(nightly.id))).toMatchObject({ status: 404, code: "not_found" });

    // Webhooks: registered (the secret once), listed without it, a delivery log, deleted.
    const { webhook, secret } = await supervisor.createWebhook({ url: "https://198.51.100.7/hook", events: ["breaker_tripped"], queues: ["client-boss"] });
    expect(secret).toMatch(/^whsec_/);
    expect((await supervisor.listWebhooks()).map((w) => w.id)).toContain(webhook.id);
    expect(await supervisor.listWebhookDeliveries(webhook.id)).toEqual({ deliveries: [], nextCursor: null });
    expect(await supervisor.adoptWebhook(webhook.id)).toMatchObject({ id: webhook.id, authorityEndedAt: null });
    await supervisor.deleteWebhook(webhook.id);
    expect(await refused(supervisor.listWebhookDeliveries(webhook.id))).toMatchObject({ status: 404, code: "not_found" });
    expect(await refused(client.createWebhook({ url: "https://198.51.100.7/hook", events: ["*"] }))).toMatchObject({ status: 403, code: "forbidden" });
  });

  test("errors: status, code, message, the current task, Retry-After", async () => {
    const task = await client.createTask({ title: "errors", queue: "errors" });
    const error = (promise: Promise<unknown>) => promise.then(() => null, (e: unknown) => e as ClaimboardApiError);

    const notStarted = await error(client.complete(task));
    expect(notStarted).toBeInstanceOf(ClaimboardApiError);
    expect(notStarted).toMatchObject({ status: 409, code: "invalid_transition", task: { id: task.id, status: "queued" } });

    const claimed = await client.claimTask(task);
    expect(await error(client.start({ id: task.id, version: 1 }))).toMatchObject({ status: 409, code: "version_conflict", task: { version: claimed.version } });
    expect(await error(client.getTask("999999"))).toMatchObject({ status: 404, code: "not_found" });
    expect(await error(client.getTask("abc"))).toMatchObject({ status: 400, code: "invalid_request" });
    expect(await error(client.claimNext({ leaseSeconds: 1 }))).toMatchObject({ status: 400, code: "invalid_request", field: "leaseSeconds" });
    expect(await error(observer.createTask({ title: "no" }))).toMatchObject({ status: 403, code: "forbidden" });
    const stranger = new ClaimboardClient({ baseUrl: server.url, token: "cb_not-a-real-token" });
    expect(await error(stranger.listTasks())).toMatchObject({ status: 401, code: "unauthorized" });

    const other = await client.createTask({ title: "locked", queue: "errors" });
    const lock = await holdRowLock(database.url, other.id);
    try {
      const busy = await error(client.claimTask(other));
      expect(busy).toMatchObject({ status: 409, code: "busy", retryAfter: 1 });
    } finally {
      await lock.release();
    }

    const nowhere = new ClaimboardClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, token: "cb_x" });
    expect(await error(nowhere.getTask("1"))).toMatchObject({ status: 0, code: "network_error" });
  });

  test("every request the client sent matches an endpoint of the server", () => {
    expect(requests.length).toBeGreaterThan(20);
    for (const request of requests) {
      const [method, pathname] = request.split(" ") as [string, string];
      expect(endpointFor(method, pathname), request).toBeDefined();
    }
    const used = new Set(requests.map((r) => endpointFor(...(r.split(" ") as [string, string]))!.operationId));
    const json = Object.values(endpoints).map((e) => e.operationId).filter((id) => !NOT_JSON.includes(id));
    expect([...used].sort()).toEqual(json.sort());
  });
});
