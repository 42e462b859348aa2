import { AgentCard, TaskState, type StreamResponse, type Task as A2ATask } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ClaimboardClient } from "@/lib/client";
import { answerQuestion, cancel } from "@/lib/tasks";
import { refusalMessage } from "@/lib/tasks/core/standing";
import { createUser } from "@/lib/auth/users";
import { signInOverHttp } from "@/test/attacks/helpers";
import { httpFixture, type HttpFixture } from "@/test/http/helpers";
import { a2aClient, data, send, text, userMessage } from "./helpers";

// Issue 54 over real HTTP with clients nobody here wrote: the A2A SDK's own client hands
// tasks to the board (a `next start` on PostgreSQL), the typed client works them as an agent
// would, and the A2A client follows each to its end: completed with the result as an
// artifact, input-required with the question and answered by its reply, canceled.

let f: HttpFixture;
let sender: Client; // an agent token's A2A client
let boss: Client; // a supervisor token's A2A client
let worker: ClaimboardClient;
let queue: string;

beforeAll(async () => {
  f = await httpFixture();
  queue = await f.queue("a2a-work");
  await f.queue("default");
  sender = await a2aClient(f, await f.token("sender"));
  boss = await a2aClient(f, await f.token("boss", "supervisor"));
  worker = new ClaimboardClient({ baseUrl: f.server.url, token: await f.token("worker") });
});
afterAll(async () => {
  await f?.close();
});

const asTask = (result: unknown) => {
  expect(result, JSON.stringify(result)).toHaveProperty("status");
  return result as A2ATask;
};
const stateOf = (task: A2ATask) => task.status?.state;

test("the agent card is public, names each queue as a skill, the bearer scheme and the JSON-RPC interface, and is the SDK's AgentCard", async () => {
  const response = await fetch(`${f.server.url}/.well-known/agent-card.json`);
  expect(response.status).toBe(200);
  const json = await response.json();
  const card = AgentCard.fromJSON(json);
  // The SDK reads back exactly what was served: no field it does not know, none it lost.
  expect(AgentCard.toJSON(card)).toEqual(json);
  expect(card.supportedInterfaces).toEqual([{ url: `${f.server.url}/api/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }]);
  expect(card.skills.map((s) => s.id)).toEqual(["queue:a2a-work", "queue:default"]);
  expect(card.securitySchemes.bearer?.scheme).toMatchObject({ $case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } });
  expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
  expect((await sender.getAgentCard()).name).toBe("Claimboard");
});

test("send → the task is on the board; the same message again is the same task; an agent claims and completes → completed with the artifact", async () => {
  const message = userMessage([text("Summarise the report\nAll three sections, please."), data({ report: "r-17" })], { queue });
  const sent = asTask(await sender.sendMessage(send(message)));
  expect(stateOf(sent)).toBe(TaskState.TASK_STATE_SUBMITTED);
  expect(asTask(await sender.sendMessage(send(message))).id).toBe(sent.id);

  const board = await worker.getTask(sent.id);
  expect(board).toMatchObject({ queue, title: "Summarise the report", description: "Summarise the report\nAll three sections, please.", payload: { report: "r-17" }, status: "queued" });

  const held = await worker.claimNext({ queue, start: true });
  expect(held?.id).toBe(sent.id);
  expect(stateOf(await sender.getTask({ tenant: "", id: sent.id }))).toBe(TaskState.TASK_STATE_WORKING);
  await worker.complete(held!, { result: { summary: "three sections, one page" } });

  const done = await sender.getTask({ tenant: "", id: sent.id });
  expect(stateOf(done)).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(done.artifacts).toHaveLength(1);
  expect(done.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { summary: "three sections, one page" } });

  const listed = await sender.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_COMPLETED, pageToken: "", statusTimestampAfter: undefined, includeArtifacts: true });
  expect(listed.tasks.map((t) => t.id)).toEqual([sent.id]);
});

test("the agent asks → input-required with the question and its choices → the client's reply answers it → the agent continues to completed", async () => {
  const sent = asTask(await boss.sendMessage(send(userMessage([text("Publish the report")], { queue }))));
  const held = (await worker.claimNext({ queue, start: true }))!;
  expect(held.id).toBe(sent.id);
  const { question } = await worker.askQuestion(held, { question: "Which format?", choices: ["pdf", "html"] });

  const asking = await boss.getTask({ tenant: "", id: sent.id });
  expect(stateOf(asking)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  expect(asking.status?.message?.parts.map((p) => p.content)).toEqual([
    { $case: "text", value: "Which format?" },
    { $case: "data", value: { choices: ["pdf", "html"] } },
  ]);

  const replied = asTask(await boss.sendMessage(send(userMessage([text("pdf")], { taskId: sent.id }))));
  expect(stateOf(replied)).toBe(TaskState.TASK_STATE_WORKING);
  const answered = await worker.getQuestion(held.id, question.id);
  expect(answered.answer).toMatchObject({ text: "pdf", choice: "pdf" });

  await worker.complete(await worker.getTask(held.id), { result: "published.pdf" });
  const done = await boss.getTask({ tenant: "", id: sent.id });
  expect(stateOf(done)).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(done.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: "published.pdf" });
});

test("an agent token's reply is refused by the engine's rule (people and supervisors answer), in the engine's words, and answers nothing", async () => {
  const sent = asTask(await sender.sendMessage(send(userMessage([text("Needs a decision")], { queue }))));
  const held = (await worker.claimNext({ queue, start: true }))!;
  const { question } = await worker.askQuestion(held, { question: "Go ahead?" });
  const refusal = await sender.sendMessage(send(userMessage([text("yes")], { taskId: sent.id }))).catch((error: Error) => error);
  expect(refusal).toBeInstanceOf(Error);
  expect(refusal.constructor.name).toMatch(/UnsupportedOperation/);
  expect((refusal as Error).message).toBe(refusalMessage(answerQuestion.name, answerQuestion.who, "agent"));
  expect((await worker.getQuestion(held.id, question.id)).answer).toBeNull();
  expect(stateOf(await sender.getTask({ tenant: "", id: sent.id }))).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
});

test("cancel: a supervisor's client cancels its queued task (canceled); an agent's is refused as the engine refuses it, and the task stays", async () => {
  const mine = asTask(await boss.sendMessage(send(userMessage([text("Not needed after all")], { queue }))));
  expect(stateOf(await boss.cancelTask({ tenant: "", id: mine.id, metadata: undefined }))).toBe(TaskState.TASK_STATE_CANCELED);
  expect((await worker.getTask(mine.id)).status).toBe("cancelled");

  const theirs = asTask(await sender.sendMessage(send(userMessage([text("Keep this one")], { queue }))));
  const refusal = await sender.cancelTask({ tenant: "", id: theirs.id, metadata: undefined }).catch((error: Error) => error);
  expect(refusal).toBeInstanceOf(Error);
  expect(refusal.constructor.name).toMatch(/TaskNotCancelable/);
  expect((refusal as Error).message).toBe(refusalMessage(cancel.name, cancel.who, "agent"));
  expect((await worker.getTask(theirs.id)).status).toBe("queued");
  // Leave the queue empty for the next test's worker.
  await f.api.post(`/tasks/${theirs.id}/cancel`, await f.token("boss-2", "supervisor"), { version: 1 });
});

test("the streaming send follows the task on the event stream: the task, working, the artifact, completed, and the stream ends", async () => {
  const events: StreamResponse[] = [];
  const stream = sender.sendMessageStream(send(userMessage([text("Stream me")], { queue })));
  const first = await stream.next();
  events.push(first.value as StreamResponse);
  const id = (first.value as StreamResponse).payload?.$case === "task" ? ((first.value as StreamResponse).payload!.value as A2ATask).id : "";
  expect(id).not.toBe("");
  const held = (await worker.claimNext({ queue, start: true }))!;
  expect(held.id).toBe(id);
  const next = await stream.next();
  events.push(next.value as StreamResponse);
  await worker.complete(held, { result: { streamed: true } });
  for await (const event of stream) events.push(event);
  const kinds = events.map((e) => e.payload?.$case === "statusUpdate" ? `status:${TaskState[e.payload.value.status!.state]}` : e.payload?.$case);
  expect(kinds).toEqual(["task", "status:TASK_STATE_WORKING", "artifactUpdate", "status:TASK_STATE_COMPLETED"]);
}, 30_000);

test("review before done is working until a reviewer approves; then completed with the approved result", async () => {
  const reviewed = "a2a-reviewed";
  await f.queueSettings(reviewed, { review: "everyone" });
  const sent = asTask(await sender.sendMessage(send(userMessage([text("Draft the notice")], { queue: reviewed }))));
  const held = (await worker.claimNext({ queue: reviewed, start: true }))!;
  const submitted = await worker.complete(held, { result: { notice: "v1" } });
  expect(submitted.status).toBe("in_review");
  const waiting = await sender.getTask({ tenant: "", id: sent.id });
  expect(stateOf(waiting)).toBe(TaskState.TASK_STATE_WORKING);
  expect(waiting.artifacts).toEqual([]);
  const reviewer = new ClaimboardClient({ baseUrl: f.server.url, token: await f.token("reviewer", "supervisor") });
  await reviewer.review(submitted, "approve", submitted.submission!.digest);
  const done = await sender.getTask({ tenant: "", id: sent.id });
  expect(stateOf(done)).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(done.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { notice: "v1" } });
});

test("the API reference page has the A2A section: where the card and the interface are, and the state mapping", async () => {
  await createUser(f.database.db, { email: "reader@example.com", name: "reader", role: "staff", password: "a-long-password-1" });
  const { session } = await signInOverHttp(f.server.url, "reader@example.com", "a-long-password-1");
  // React marks the seams between a text and an expression with <!-- -->: read the text without them.
  const page = (await (await fetch(`${f.server.url}/api-reference`, { headers: { cookie: session! } })).text()).replaceAll("<!-- -->", "");
  const has = (needle: string | RegExp) => (typeof needle === "string" ? page.includes(needle) : needle.test(page));
  expect(has('id="a2a-heading"'), "the section").toBe(true);
  expect(has(`${f.server.url}/.well-known/agent-card.json`), "the card's address").toBe(true);
  expect(has(`${f.server.url}/api/a2a`), "the interface's address").toBe(true);
  expect(has(/awaiting_input<\/th><td[^>]*>TASK_STATE_INPUT_REQUIRED/), "the state table").toBe(true);
});

test("SubscribeToTask follows a task already sent: the task as it is, the question (input-required), then working and completed", async () => {
  const sent = asTask(await boss.sendMessage(send(userMessage([text("Follow me")], { queue }))));
  const held = (await worker.claimNext({ queue, start: true }))!;
  expect(held.id).toBe(sent.id);
  const stream = boss.resubscribeTask({ tenant: "", id: sent.id });
  const first = (await stream.next()).value as StreamResponse;
  expect(first.payload?.$case).toBe("task");
  expect(stateOf(first.payload!.value as A2ATask)).toBe(TaskState.TASK_STATE_WORKING);

  const { question } = await worker.askQuestion(held, { question: "Short or long?", choices: ["short", "long"] });
  const asked = (await stream.next()).value as StreamResponse;
  expect(asked.payload?.$case).toBe("statusUpdate");
  const status = (asked.payload!.value as { status: A2ATask["status"] }).status!;
  expect(status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  expect(status.message?.parts[0]?.content).toEqual({ $case: "text", value: "Short or long?" });

  await boss.sendMessage(send(userMessage([text("short")], { taskId: sent.id })));
  expect((await worker.getQuestion(held.id, question.id)).answer?.choice).toBe("short");
  const resumed = (await stream.next()).value as StreamResponse;
  expect((resumed.payload!.value as { status: A2ATask["status"] }).status!.state).toBe(TaskState.TASK_STATE_WORKING);

  await worker.complete(await worker.getTask(held.id), { result: "short version" });
  const rest: StreamResponse[] = [];
  for await (const event of stream) rest.push(event);
  expect(rest.map((e) => e.payload?.$case)).toEqual(["artifactUpdate", "statusUpdate"]);
  expect((rest[1]!.payload!.value as { status: A2ATask["status"] }).status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
}, 30_000);
