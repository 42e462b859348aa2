import { afterAll, beforeAll, expect, test } from "vitest";
import { attackFixture, callAction, manifestActions, mustSignIn, stateDigest, type AttackFixture } from "@/test/attacks/helpers";
import { expectError, expectTaskResponse, type WireTask } from "./helpers";

// A party cannot answer itself, on every surface that answers (lib/tasks/questions/answerable.ts):
// a supervisor's two OAuth connections are one party with the supervisor, so neither the second
// connection (over HTTP) nor the person (the inbox's server action) answers the first one's
// question — 403 self_review, nothing written — while someone else may.

let f: AttackFixture;
let boss: { email: string; password: string; actorId: string };
let cookie: string;
let askingAgent: string;
let secondConnection: string;
let outsider: string;

/** A token of `role` that acts as an OAuth connection of `personId` (lib/oauth: the connection's agent). */
async function connection(name: string, role: "agent" | "supervisor", personId: string): Promise<string> {
  const token = await f.token(name, role);
  const [row] = await f.database.client<{ id: string }[]>`SELECT id::text FROM agent_tokens WHERE name = ${name}`;
  await f.database.client`INSERT INTO oauth_clients (id, name, redirect_uris, metadata) VALUES (${`client-${name}`}, ${name}, '{http://127.0.0.1/cb}', '{}')`;
  await f.database.client`INSERT INTO oauth_connections (client_id, person_id, token_id, scope) VALUES (${`client-${name}`}, ${personId}::uuid, ${row!.id}::uuid, 'board:work')`;
  return token;
}

beforeAll(async () => {
  f = await attackFixture();
  boss = await f.person("boss@example.com", "supervisor");
  cookie = await mustSignIn(f, boss.email, boss.password);
  askingAgent = await connection("claude-boss", "agent", boss.actorId);
  secondConnection = await connection("cursor-boss", "supervisor", boss.actorId);
  outsider = await f.token("someone-else", "supervisor");
});
afterAll(async () => {
  await f?.close();
});

async function asked(): Promise<{ task: WireTask; questionId: string }> {
  let task = expectTaskResponse(await f.api.post("/tasks", askingAgent, { title: "ship it?", queue: await f.queue("party") }), 201);
  task = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, askingAgent, { version: task.version }));
  task = expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, askingAgent, { version: task.version }));
  const res = await f.api.post(`/tasks/${task.id}/questions`, askingAgent, { version: task.version, question: "Ship on Friday?" });
  expect(res.status, res.text).toBe(201);
  return { task, questionId: (res.body as { question: { id: string } }).question.id };
}

test("the second connection (HTTP) and the person (the inbox's action) are refused self_review; an outsider answers", async () => {
  const { task, questionId } = await asked();
  const before = await stateDigest(f);
  expectError(await f.api.post(`/tasks/${task.id}/questions/${questionId}/answer`, secondConnection, { text: "yes" }), 403, "self_review");
  const action = manifestActions().find((a) => a.exportedName === "answerQuestionAction")!;
  expect(action, "answerQuestionAction is in the build").toBeDefined();
  const answer = await callAction(f.server.url, action, [{ taskId: task.id, questionId, text: "yes" }], { cookie });
  expect(answer.result, answer.text).toMatchObject({ ok: false, error: { code: "self_review" } });
  expect(await stateDigest(f), "a refused answer changed the database").toEqual(before);
  const done = await f.api.post(`/tasks/${task.id}/questions/${questionId}/answer`, outsider, { text: "yes" });
  expect(done.status, done.text).toBe(200);
});
