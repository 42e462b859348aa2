import { afterAll, beforeAll, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { createActor, createTask, perform, type ActorRef } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { percentile } from "@/test/realtime/helpers";
import { startServer, type TestServer } from "@/test/server";
import { Api, expectError } from "./helpers";

// Held requests under their caps, at the defaults (docs/realtime.md "Held requests"): a clean
// stop answers every open claim wait 204 at once; question waits beyond a token's cap (64)
// answer 429; and the cap's worth of question waits on one busy task leaves other callers'
// reads within their usual spread (a waiting question is re-read only on an event that can
// settle it, not on every event of its task).

let database: TestDatabase;
let server: TestServer;
let api: Api;
let creator: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  server = await startServer(database.url);
  api = new Api(`${server.url}/api/v1`);
  creator = await createActor(database.db, "user", "Creator");
});
afterAll(async () => {
  await server?.stop();
  await database?.close();
});

const token = async (name: string, role: "agent" | "observer" = "agent") => (await createAgentToken(database.db, { name, role })).token;

/** A started task with an open question, asked by `asker`. */
async function askedQuestion(asker: string, queue: string) {
  await makeQueue(database.db, queue);
  const made = await perform(createTask, { title: "busy task", queue }, { db: database.db, actor: creator });
  if (!made.ok) throw new Error(made.error.message);
  const claimed = (await api.post("/claims", asker, { queue, start: true })).body as { task: { id: string; version: number } };
  const asked = await api.post(`/tasks/${claimed.task.id}/questions`, asker, { version: claimed.task.version, question: "Which one?" });
  expect(asked.status, asked.text).toBe(201);
  return { taskId: claimed.task.id, questionId: (asked.body as { question: { id: string } }).question.id };
}

/** Median time of `n` reads of the task list by `reader`, one after another. */
async function medianRead(reader: string, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const began = performance.now();
    expect((await api.get("/tasks?limit=20", reader)).status).toBe(200);
    times.push(performance.now() - began);
  }
  return percentile(times, 50);
}

test("question waits beyond a token's cap answer 429 naming it; the cap's worth open on a busy task leaves others' reads in their usual spread", async () => {
  const asker = await token("asker");
  const watcher = await token("question-watcher", "observer");
  const reader = await token("reader", "observer");
  const { taskId, questionId } = await askedQuestion(asker, "asking");
  const path = `/tasks/${taskId}/questions/${questionId}?wait=60`;

  // Comments on the task all along: each is an event of the waiting questions' task.
  let commenting = true;
  const comments = (async () => {
    while (commenting) {
      await api.post(`/tasks/${taskId}/comments`, asker, { body: "still here" });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await medianRead(reader, 10); // warm
  const without = await medianRead(reader, 40);

  const controller = new AbortController();
  const waits = Array.from({ length: 64 }, () =>
    fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${watcher}` }, signal: controller.signal }).catch(() => null));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const refused = await expectError(await api.get(path, watcher), 429, "rate_limited");
  expect(refused.message).toMatch(/\b64\b.*question waits.*per token/);
  const withWaits = await medianRead(reader, 40);
  commenting = false;
  await comments;
  controller.abort();
  await Promise.all(waits);
  // A ratio of medians from one run, not a time: the waits cost the reader nothing it can see.
  expect(withWaits / without, `median read ${without.toFixed(1)} ms without, ${withWaits.toFixed(1)} ms with 64 waits`).toBeLessThan(2);
}, 120_000);

test("a clean stop answers every open claim wait 204 within its stop time", async () => {
  const queue = await makeQueue(database.db, "stopping");
  const agents = await Promise.all(Array.from({ length: 10 }, (_, i) => token(`stopper-${i}`)));
  const waits = agents.map((t) => api.post("/claims", t, { queue, wait: 60 }));
  const open = async () => (await database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM claim_waits WHERE queue = ${queue} AND until > now()`)[0]!.n;
  for (let i = 0; (await open()) < 10; i++) {
    if (i > 500) throw new Error("the waits did not open");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const began = Date.now();
  await server.stop();
  const answers = await Promise.all(waits);
  expect(answers.map((a) => a.status)).toEqual(Array(10).fill(204));
  expect(Date.now() - began).toBeLessThan(10_000); // far inside the 60 s the waits asked for
  // Each wait cleared its mark on the way out: nobody shows as waiting on a stopped server.
  expect(await open()).toBe(0);
}, 60_000);
