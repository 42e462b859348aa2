import { afterAll, beforeAll, expect, test } from "vitest";
import { attackFixture, callAction, manifestActions, mustSignIn, type AttackFixture } from "@/test/attacks/helpers";
import { createActor, createTask, perform } from "@/lib/tasks";
import { makeQueue } from "@/test/queues";
import { call, connect, resultJson } from "@/test/mcp/helpers";
import { expectError } from "./helpers";

// Every API call and server action answers: one whose database call does not settle by the
// deadline gets `unavailable` (retry), and the pool it waited on is replaced, so the server
// carries on.
// The deadline is short here and a table lock stands in for a call the driver never settles
// (the real case, postgres.js after a reset under load, cannot be made on purpose). A wait the
// caller chose (a question's long-poll) is no database call, and does not count.

let f: AttackFixture;
let token: string;

beforeAll(async () => {
  f = await attackFixture({ REQUEST_DEADLINE_SECONDS: "2" });
  token = await f.token("patient");
});
afterAll(async () => {
  await f?.close();
});

test("a call with no answer from the database in time is 503 unavailable; the next calls work on a new pool", async () => {
  expect((await f.api.get("/tasks", token)).status).toBe(200);
  const holder = await f.database.client.reserve();
  try {
    await holder`BEGIN`;
    await holder`LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE`; // longer than the deadline, shorter than lock_timeout's 5 s
    const started = Date.now();
    const res = await f.api.get("/tasks", token);
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(expectError(res, 503, "unavailable").message).toMatch(/did not answer in time/);
    expect(res.headers.get("retry-after")).toBe("1");
  } finally {
    await holder`ROLLBACK`;
    holder.release();
  }
  expect((await f.api.get("/tasks", token)).status).toBe(200);
  expect(f.server.output()).toMatch(/listTasks: no answer from the database in 2 s; its pool is replaced/);
});

test("a server action with no answer from the database in time answers unavailable; the next one works", async () => {
  const person = await f.person("deadline@example.com", "staff");
  const cookie = await mustSignIn(f, person.email, person.password);
  // Any staff action that reads tasks: the board's claim.
  const action = manifestActions().find((a) => a.exportedName === "claimAction")!;
  await makeQueue(f.database.db, "deadline");
  const made = await perform(createTask, { title: "claimed after the stall", queue: "deadline" }, { db: f.database.db, actor: await createActor(f.database.db, "user", "Author") });
  if (!made.ok) throw new Error(made.error.message);
  const target = { taskId: made.value.id, version: made.value.version };
  const holder = await f.database.client.reserve();
  try {
    await holder`BEGIN`;
    await holder`LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE`;
    const started = Date.now();
    const answer = await callAction(f.server.url, action, [target], { cookie });
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(answer.result).toMatchObject({ ok: false, error: { code: "unavailable", message: expect.stringMatching(/did not answer in time/) } });
  } finally {
    await holder`ROLLBACK`;
    holder.release();
  }
  expect((await callAction(f.server.url, action, [target], { cookie })).result).toMatchObject({ ok: true });
  expect(f.server.output()).toMatch(/\[action\] claim: no answer from the database in 2 s; its pool is replaced/);
});

test("a question's long-poll waits past the deadline: its sleeps are no database call, and no pool is replaced (HTTP and MCP)", { timeout: 30_000 }, async () => {
  const queue = await f.queue("deadline-ask");
  const asker = await f.token("asker");
  type Wire = { task: { id: string; version: number } };
  let { task } = (await f.api.post("/tasks", asker, { title: "ask and wait", queue })).body as Wire;
  ({ task } = (await f.api.post(`/tasks/${task.id}/claim`, asker, { version: task.version })).body as Wire);
  ({ task } = (await f.api.post(`/tasks/${task.id}/start`, asker, { version: task.version })).body as Wire);
  const asked = (await f.api.post(`/tasks/${task.id}/questions`, asker, { version: task.version, question: "Full refund?" })).body as { question: { id: string } };
  const before = f.server.output().length;

  const started = Date.now();
  const res = await f.api.get(`/tasks/${task.id}/questions/${asked.question.id}?wait=4`, token);
  expect(res.status).toBe(200);
  expect((res.body as { question: unknown }).question).toMatchObject({ id: asked.question.id, answer: null });
  expect(Date.now() - started).toBeGreaterThanOrEqual(3_900); // twice the 2 s deadline

  const mcp = await connect(f, "http", asker);
  try {
    const read = resultJson(await call(mcp, "get_answer", { id: task.id, questionId: asked.question.id, waitSeconds: 4 }));
    expect(read).toMatchObject({ question: { id: asked.question.id, answer: null } });
  } finally {
    await mcp.close();
  }
  expect(f.server.output().slice(before)).not.toMatch(/its pool is replaced/);
});
