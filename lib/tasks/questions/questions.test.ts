import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  answerQuestion, askQuestion, claim, claimNext, foldEvents, getQuestion, renew, start, sweepExpiredLeases, taskHistory, taskReadiness, perform,
  type ActorRef, type Task,
} from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, rowCounts, taskRow } from "@/test/inspect";
import { expireQuestions } from "./expire";

// Asking a person in the engine (docs/contract.md#asking-a-person, docs/questions.md), on the injected clock: a
// parked lease outlives any number of lease lengths, an answer resumes it fresh, an answer
// after the owner died reaches the next claimant, and the deadline escalates.

const LEASE = 30;
let f: EngineFixture;
let bot: ActorRef;
let other: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  bot = await f.actor("agent-q", "agent");
  other = await f.actor("agent-r", "agent");
  sara = await f.actor("Sara");
  await f.queue("asks", { leaseSeconds: LEASE, questionTimeoutSeconds: 3600 });
});
afterAll(async () => {
  await f?.close();
});

const answering = withStanding(answerQuestion, "staff");

async function startedTask(title = "Refund order 9", queue = "asks"): Promise<Task> {
  await f.queue(queue, { leaseSeconds: LEASE, questionTimeoutSeconds: 3600 });
  const task = await f.task(title, { queue });
  const claimed = await f.must(claim, { taskId: task.id, version: task.version }, bot);
  return f.must(start, { taskId: task.id, version: claimed.version }, bot);
}

async function expectReplays(taskId: string) {
  const { id: _id, blockedBy: _b, ...state } = await taskRow(f.db, taskId);
  expect(foldEvents(await taskHistory(f.db, taskId))).toEqual(state);
}

describe("asking parks the lease", () => {
  test("a question outlives three lease lengths without a lapse; the sweep and a claim leave it; the answer resumes with a fresh lease", async () => {
    const task = await startedTask();
    const asked = await f.must(askQuestion, { taskId: task.id, version: task.version, question: "Refund in full?", choices: ["yes", "no"] }, bot);
    expect(asked.task).toMatchObject({ status: "awaiting_input", version: task.version + 1, owner: { id: bot.id }, leaseUntil: null });
    expect(asked.question).toMatchObject({ taskId: task.id, question: "Refund in full?", choices: ["yes", "no"], answer: null, kind: "agent" });
    expect(asked.question.deadline.getTime() - asked.question.askedAt.getTime()).toBe(3600_000);

    f.clock.advance(LEASE * 3 + 5);
    await f.must(sweepExpiredLeases, {}, bot);
    expect(await f.must(claimNext, { queue: "asks" }, other)).toBeNull();
    const refused = failure(await f.run(claim, { taskId: task.id, version: asked.task.version }, other), "invalid_transition");
    expect(refused.message).toContain("awaiting_input");
    const readiness = await f.must(taskReadiness, { taskId: task.id }, other);
    expect(readiness).toMatchObject({ claimable: false, reasons: [{ code: "status" }] });
    let row = await taskRow(f.db, task.id);
    expect(row).toMatchObject({ status: "awaiting_input", ownerId: bot.id, attempt: 1, version: asked.task.version });
    expect(await eventTypes(f.db, task.id)).not.toContain("lease_expired");

    const answered = await f.must(answering, { taskId: task.id, questionId: asked.question.id, text: "yes", choice: "yes" }, sara);
    expect(answered.question.answer).toMatchObject({ text: "yes", choice: "yes", by: { id: sara.id } });
    expect(answered.task).toMatchObject({ status: "started", owner: { id: bot.id }, version: asked.task.version + 1, attempt: 1 });
    expect(answered.task.leaseUntil!.getTime()).toBe(f.clock.time.getTime() + LEASE * 1000);
    // The owner goes on under the same attempt: its heartbeat works.
    await f.must(renew, { taskId: task.id, version: answered.task.version }, bot);
    row = await taskRow(f.db, task.id);
    expect(row.status).toBe("started");
    await expectReplays(task.id);
  });

  test("an answer after the owner died: the lease lapses as usual and the next claimant gets question and answer in the hand-off", async () => {
    const task = await startedTask("Ship parcel 3", "asks-handoff");
    await f.must(renew, { taskId: task.id, version: task.version, progress: "packed the box" }, bot);
    const asked = await f.must(askQuestion, { taskId: task.id, version: task.version, question: "Which carrier?" }, bot);
    f.clock.advance(LEASE * 10); // the agent died while it waited
    await f.must(answering, { taskId: task.id, questionId: asked.question.id, text: "Use DHL" }, sara);
    f.clock.advance(LEASE + 1); // nobody heartbeats the fresh lease
    const next = await f.must(claimNext, { queue: "asks-handoff" }, other);
    expect(next).toMatchObject({ id: task.id, attempt: 2, owner: { id: other.id } });
    expect(next!.handoff?.summary).toBe("Asked: Which carrier?\nAnswer: Use DHL");
    expect(next!.handoff?.by.id).toBe(sara.id);
    expect(await eventTypes(f.db, task.id)).toEqual(expect.arrayContaining(["question_asked", "question_answered", "lease_expired", "claimed"]));
    await expectReplays(task.id);
  });

  test("a question past its deadline escalates the task (the reason names it), lazily at the next read, the question kept", async () => {
    const task = await startedTask("Call the bank");
    const asked = await f.must(askQuestion, { taskId: task.id, version: task.version, question: "Which account?", timeoutSeconds: 60 }, bot);
    f.clock.advance(61);
    const read = await f.must(getQuestion, { taskId: task.id, questionId: asked.question.id }, bot);
    expect(read.answer).toBeNull();
    expect(read.expiredAt).not.toBeNull();
    const row = await taskRow(f.db, task.id);
    expect(row).toMatchObject({ status: "escalated", ownerId: null, leaseUntil: null, version: asked.task.version + 1 });
    const types = await eventTypes(f.db, task.id);
    expect(types.slice(-2)).toEqual(["question_expired", "escalated"]);
    const history = await taskHistory(f.db, task.id);
    expect(history.at(-1)!.payload).toMatchObject({ reason: expect.stringContaining(`Question ${asked.question.id}`) });
    // A late answer is refused; the expiry is not repeated.
    const late = failure(await f.run(answering, { taskId: task.id, questionId: asked.question.id, text: "Savings" }, sara), "invalid_transition");
    expect(late.message).toContain("deadline");
    expect(await f.db.transaction((tx) => expireQuestions(tx, f.clock))).toBe(0);
    await expectReplays(task.id);
  });
});

describe("refusals write nothing", () => {
  test("self_review, a choice not offered, an answered question, an agent's answer, a claimed task's ask", async () => {
    const task = await startedTask("Pay invoice 12");
    const asked = await f.must(askQuestion, { taskId: task.id, version: task.version, question: "Pay now?", choices: ["now", "later"] }, bot);
    const before = await rowCounts(f.db);
    failure(await f.run(answering, { taskId: task.id, questionId: asked.question.id, text: "yes" }, bot), "self_review");
    const choice = failure(await f.run(answering, { taskId: task.id, questionId: asked.question.id, text: "soon", choice: "soon" }, sara), "invalid_request");
    expect(choice.field).toBe("choice");
    failure(await perform(answerQuestion, { taskId: task.id, questionId: asked.question.id, text: "now" }, { db: f.db, actor: other, clock: f.clock, standing: "agent" }), "forbidden");
    failure(await f.run(answering, { taskId: task.id, questionId: "999999", text: "now" }, sara), "not_found");
    failure(await f.run(askQuestion, { taskId: task.id, version: asked.task.version, question: "Again?" }, bot), "invalid_transition");
    failure(await f.run(askQuestion, { taskId: task.id, version: asked.task.version, question: "", choices: [] }, bot), "invalid_request");
    expect(await rowCounts(f.db)).toEqual(before);
    await f.must(answering, { taskId: task.id, questionId: asked.question.id, text: "now", choice: "now" }, sara);
    const after = await rowCounts(f.db);
    failure(await f.run(answering, { taskId: task.id, questionId: asked.question.id, text: "later", choice: "later" }, sara), "invalid_transition");
    expect(await rowCounts(f.db)).toEqual(after);

    const claimedOnly = await f.task("Not started", { queue: "asks" });
    const held = await f.must(claim, { taskId: claimedOnly.id, version: 1 }, bot);
    failure(await f.run(askQuestion, { taskId: claimedOnly.id, version: held.version, question: "May I?" }, bot), "invalid_transition");
    failure(await f.run(askQuestion, { taskId: claimedOnly.id, version: held.version, question: "May I?" }, other), "not_owner");
  });
});
