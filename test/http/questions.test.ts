import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { perform, sweepExpiredLeases } from "@/lib/tasks";
import { createActor } from "@/lib/tasks/core/actors";
import { expectError, expectTask, expectTaskResponse, httpFixture, type HttpFixture, type HttpResult, type WireTask } from "./helpers";

// Issue 23's "Asking a person" over real HTTP (docs/contract.md#asking-a-person, docs/questions.md): an agent asks,
// its lease parks; a supervisor's token answers; the long-poll wakes on the answer; the
// deadline escalates; the hand-off reaches the next claimant; every refusal writes nothing.

let f: HttpFixture;
let amal: string;
let bilal: string;
let boss: string;
let watcher: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
  bilal = await f.token("bilal");
  boss = await f.token("boss", "supervisor");
  watcher = await f.token("watcher", "observer");
});
afterAll(async () => {
  await f?.close();
});

interface WireQuestion {
  id: string; taskId: string; kind: string; question: string; choices: string[]; askedAt: string; deadline: string;
  answer: { text: string; choice: string | null; by: { name: string }; at: string } | null; expiredAt: string | null;
}

function questionResponse(res: HttpResult, status: number): { question: WireQuestion; task: WireTask } {
  expect(res.status, res.text).toBe(status);
  const body = res.body as { question: WireQuestion; task: WireTask };
  expect(Object.keys(body).sort()).toEqual(["question", "task"]);
  expectTask(body.task);
  return body;
}

async function startedTask(queue: string, title = "A task", token = amal): Promise<WireTask> {
  const task = expectTaskResponse(await f.api.post("/tasks", token, { title, queue: await f.queue(queue) }), 201);
  const claimed = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, token, { version: task.version }));
  return expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, token, { version: claimed.version }));
}

/**
 * The HTTP suite's stand-in for the injected clock: `seconds` pass for one task — its own
 * times and its questions' move back by that much, as if the database clock had moved on.
 */
async function passTime(taskId: string, seconds: number) {
  await f.database.client`
    UPDATE tasks SET updated_at = updated_at - make_interval(secs => ${seconds}), claimed_at = claimed_at - make_interval(secs => ${seconds}),
           lease_until = lease_until - make_interval(secs => ${seconds}), progress_at = progress_at - make_interval(secs => ${seconds})
    WHERE id = ${taskId}::bigint`;
  await f.database.client`
    UPDATE task_questions SET asked_at = asked_at - make_interval(secs => ${seconds}), deadline = deadline - make_interval(secs => ${seconds})
    WHERE task_id = ${taskId}::bigint`;
}

describe("an agent asks, a person answers", () => {
  test("ask parks the task (201, fence kept); the long-poll answers as soon as a supervisor answers; the task is started again with a fresh lease", async () => {
    const task = await startedTask("q-http", "Refund order 9");
    const asked = questionResponse(await f.api.post(`/tasks/${task.id}/questions`, amal, { version: task.version, question: "Refund in full?", choices: ["yes", "no"] }), 201);
    expect(asked.task).toMatchObject({ status: "awaiting_input", version: task.version + 1, leaseUntil: null, owner: { name: "amal" }, fence: task.fence });
    expect(asked.question).toMatchObject({ taskId: task.id, question: "Refund in full?", choices: ["yes", "no"], answer: null, expiredAt: null, kind: "agent" });
    expect(Date.parse(asked.question.deadline) - Date.parse(asked.question.askedAt)).toBe(86_400_000);
    // A heartbeat is not needed, and is no renewal of a parked lease.
    expectError(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: asked.task.version }), 409, "invalid_transition");
    expect((await f.api.post("/fences/verify", watcher, { fence: task.fence })).body).toMatchObject({ current: true, status: "awaiting_input" });

    const began = Date.now();
    const polling = f.api.get(`/tasks/${task.id}/questions/${asked.question.id}?wait=30`, amal);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answered = questionResponse(await f.api.post(`/tasks/${task.id}/questions/${asked.question.id}/answer`, boss, { text: "yes", choice: "yes" }), 200);
    expect(answered.question.answer).toMatchObject({ text: "yes", choice: "yes", by: { name: "boss" } });
    expect(answered.task).toMatchObject({ status: "started", version: asked.task.version + 1, owner: { name: "amal" } });
    const polled = await polling;
    expect(polled.status, polled.text).toBe(200);
    expect((polled.body as { question: WireQuestion }).question.answer).toMatchObject({ text: "yes" });
    expect(Date.now() - began).toBeLessThan(20_000); // woken by the answer, not by the wait's end
    const mine = expectTaskResponse(await f.api.get(`/tasks/${task.id}`, amal));
    expect(Date.parse(mine.leaseUntil!)).toBeGreaterThan(Date.parse(answered.question.answer!.at));
    expectTaskResponse(await f.api.post(`/tasks/${task.id}/heartbeat`, amal, { version: answered.task.version }));
  });

  test("a question outlives three lease lengths without a lapse: no claim, sweep or fence sees one; the answer starts a fresh lease", async () => {
    await f.queueSettings("q-parked", { leaseSeconds: 30 });
    const task = await startedTask("q-parked", "Wire the refund");
    const asked = questionResponse(await f.api.post(`/tasks/${task.id}/questions`, amal, { version: task.version, question: "Which account?" }), 201);
    // The server's clock is the database's: three lease lengths and a second pass for this task
    // by moving everything it wrote back (a lease left behind by the ask would now be past).
    await passTime(task.id, 3 * 30 + 1);
    expectTaskResponse(await f.api.get(`/tasks/${task.id}`, watcher)); // a read: lazy expiry had its chance
    expect((await f.api.post("/claims", bilal, { queue: "q-parked" })).status).toBe(204);
    expectError(await f.api.post(`/tasks/${task.id}/claim`, bilal, { version: asked.task.version }), 409, "invalid_transition");
    const swept = await perform(sweepExpiredLeases, { queue: "q-parked" }, { db: f.database.db, actor: await createActor(f.database.db, "user", "sweeper") });
    expect(swept.ok && swept.value.expired).toBe(0);
    expect((await f.api.post("/fences/verify", watcher, { fence: task.fence })).body).toMatchObject({ current: true, status: "awaiting_input" });
    const parked = expectTaskResponse(await f.api.get(`/tasks/${task.id}`, watcher));
    expect(parked).toMatchObject({ status: "awaiting_input", owner: { name: "amal" }, leaseUntil: null, attempt: 1, version: asked.task.version });
    const types = ((await f.api.get(`/tasks/${task.id}/events`, watcher)).body as { events: { type: string }[] }).events.map((e) => e.type);
    expect(types).not.toContain("lease_expired");

    const answered = questionResponse(await f.api.post(`/tasks/${task.id}/questions/${asked.question.id}/answer`, boss, { text: "The EUR one" }), 200);
    expect(answered.task).toMatchObject({ status: "started", owner: { name: "amal" }, attempt: 1 });
    const fresh = Date.parse(answered.task.leaseUntil!) - Date.parse(answered.question.answer!.at);
    expect(fresh).toBe(30_000); // the queue's lease length from the answer, not what was left when it asked
  });

  test("an unanswered wait ends with the question still open; wait=0 answers at once", async () => {
    const task = await startedTask("q-wait");
    const asked = questionResponse(await f.api.post(`/tasks/${task.id}/questions`, amal, { version: task.version, question: "Anyone?" }), 201);
    const began = Date.now();
    const res = await f.api.get(`/tasks/${task.id}/questions/${asked.question.id}?wait=1`, watcher);
    expect(res.status).toBe(200);
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
    expect((res.body as { question: WireQuestion }).question.answer).toBeNull();
  });

  test("the owner died after the answer: the lease lapses as usual and the next claimant has question and answer in its hand-off", async () => {
    const task = await startedTask("q-handoff", "Ship parcel 3");
    const asked = questionResponse(await f.api.post(`/tasks/${task.id}/questions`, amal, { version: task.version, question: "Which carrier?" }), 201);
    questionResponse(await f.api.post(`/tasks/${task.id}/questions/${asked.question.id}/answer`, boss, { text: "Use DHL" }), 200);
    await f.lapseLease(task.id);
    const next = expectTaskResponse(await f.api.post("/claims", bilal, { queue: "q-handoff" }));
    expect(next).toMatchObject({ id: task.id, attempt: 2, owner: { name: "bilal" } });
    expect(next.handoff).toMatchObject({ summary: "Asked: Which carrier?\nAnswer: Use DHL", by: { name: "boss" } });
  });

  test("a question past its deadline escalates the task at the next read, the reason naming the question", async () => {
    const task = await startedTask("q-deadline");
    const asked = questionResponse(await f.api.post(`/tasks/${task.id}/questions`, amal, { version: task.version, question: "Which account?", timeoutSeconds: 60 }), 201);
    await f.database.client`UPDATE task_questions SET deadline = now() - interval '1 second' WHERE id = ${asked.question.id}::bigint`;
    const read = await f.api.get(`/tasks/${task.id}/questions/${asked.question.id}`, watcher);
    expect((read.body as { question: WireQuestion }).question).toMatchObject({ answer: null, expiredAt: expect.any(String) });
    const escalated = expectTaskResponse(await f.api.get(`/tasks/${task.id}`, watcher));
    expect(escalated).toMatchObject({ status: "escalated", owner: null, version: asked.task.version + 1 });
    const events = (await f.api.get(`/tasks/${task.id}/events`, watcher)).body as { events: { type: string; payload: { reason?: string } }[] };
    expect(events.events.slice(-2).map((e) => e.type)).toEqual(["question_expired", "escalated"]);
    expect(events.events.at(-1)!.payload.reason).toContain(`Question ${asked.question.id}`);
    expectError(await f.api.post(`/tasks/${task.id}/questions/${asked.question.id}/answer`, boss, { text: "late" }), 409, "invalid_transition");
  });
});

describe("refusals write nothing", () => {
  test("self_review, a choice not offered, an answer twice, an agent's answer, a bad ask, a bad wait", async () => {
    const own = await startedTask("q-bad", "Supervisor's own", boss);
    const mine = questionResponse(await f.api.post(`/tasks/${own.id}/questions`, boss, { version: own.version, question: "Me?" }), 201);
    const task = await startedTask("q-bad", "Pay invoice 12");
    const asked = questionResponse(await f.api.post(`/tasks/${task.id}/questions`, amal, { version: task.version, question: "Pay now?", choices: ["now", "later"] }), 201);
    const claimedOnly = expectTaskResponse(await f.api.post("/tasks", amal, { title: "claimed", queue: "q-bad" }), 201);
    const held = expectTaskResponse(await f.api.post(`/tasks/${claimedOnly.id}/claim`, amal, { version: 1 }));
    const events = await f.eventCount();
    const answer = (id: string, qid: string) => `/tasks/${id}/questions/${qid}/answer`;

    expectError(await f.api.post(answer(own.id, mine.question.id), boss, { text: "yes" }), 403, "self_review");
    const choice = expectError(await f.api.post(answer(task.id, asked.question.id), boss, { text: "soon", choice: "soon" }), 400, "invalid_request");
    expect(choice.field).toBe("choice");
    expectError(await f.api.post(answer(task.id, asked.question.id), bilal, { text: "now" }), 403, "forbidden");
    expectError(await f.api.post(answer(task.id, asked.question.id), boss, { text: "" }), 400, "invalid_request");
    expectError(await f.api.post(answer(task.id, "999999"), boss, { text: "now" }), 404, "not_found");
    expectError(await f.api.post(`/tasks/${task.id}/questions`, amal, { version: asked.task.version, question: "Again?" }), 409, "invalid_transition");
    expectError(await f.api.post(`/tasks/${claimedOnly.id}/questions`, amal, { version: held.version, question: "May I?" }), 409, "invalid_transition");
    expectError(await f.api.post(`/tasks/${claimedOnly.id}/questions`, bilal, { version: held.version, question: "May I?" }), 409, "not_owner");
    for (const body of [
      { version: held.version, question: "" },
      { version: held.version, question: "x".repeat(2001) },
      { version: held.version, question: "Which?", choices: Array.from({ length: 11 }, (_, i) => `c${i}`) },
      { version: held.version, question: "Which?", choices: ["a", "a"] },
      { version: held.version, question: "Which?", timeoutSeconds: 59 },
      { version: held.version, question: "Which?", unknown: 1 },
    ]) expectError(await f.api.post(`/tasks/${claimedOnly.id}/questions`, amal, body), 400, "invalid_request");
    expectError(await f.api.get(`/tasks/${task.id}/questions/${asked.question.id}?wait=61`, amal), 400, "invalid_request");
    expect(await f.eventCount()).toBe(events);

    questionResponse(await f.api.post(answer(task.id, asked.question.id), boss, { text: "now", choice: "now" }), 200);
    const after = await f.eventCount();
    expectError(await f.api.post(answer(task.id, asked.question.id), boss, { text: "later", choice: "later" }), 409, "invalid_transition");
    expect(await f.eventCount()).toBe(after);
  });
});
