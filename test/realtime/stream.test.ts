import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { claimNext, createActor, createTask, perform, type ActorRef } from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { Api, expectError } from "@/test/http/helpers";
import { startServer, type TestServer } from "@/test/server";
import { openEventStream, type SseClient } from "@/test/sse";
import { createAndClaim, createTasks, eventIdOf, lastTableCursor, openTransaction, tableCursors, until } from "./helpers";
import { makeQueue } from "@/test/queues";

// GET /api/v1/events over real HTTP against `next start`: replay, the out-of-order commit,
// filters and errors, and the loss of the server's LISTEN connection.

let database: TestDatabase;
let server: TestServer;
let token: string;
let actor: ActorRef;
let api: Api;
beforeAll(async () => {
  database = await freshDatabase();
  server = await startServer(database.url);
  token = (await createAgentToken(database.db, { name: "watcher", role: "observer" })).token;
  actor = await createActor(database.db, "user", "Writer");
  api = new Api(`${server.url}/api/v1`);
});
afterAll(async () => {
  await server?.stop();
  await database?.close();
});

const streamUrl = (query = "") => `${server.url}/api/v1/events${query}`;
const open = (options: { lastEventId?: string; query?: string } = {}) =>
  openEventStream(streamUrl(options.query), { token, lastEventId: options.lastEventId });
const reaches = (client: SseClient, cursor: string) => () => client.lastEventId() === cursor;

test("a client that reconnects with Last-Event-ID gets exactly the 20 changes it missed, in order, then live ones", async () => {
  const first = await open();
  // fetch asks for gzip like a browser: a compressed event stream would be buffered.
  expect(first.response.headers.get("content-encoding")).toBeNull();
  await until(() => first.comments.includes("connected"), "the stream to open");
  await createTasks(database.db, actor, 3, { title: "seen" });
  await until(() => first.messages.length === 3, "the first 3 events");
  const cursor = first.lastEventId()!;
  first.close();
  await first.ended;

  await createTasks(database.db, actor, 10, { title: "missed" });
  for (let i = 0; i < 10; i++) await perform(claimNext, {}, { db: database.db, actor });
  const missed = await tableCursors(database, { after: cursor });
  expect(missed).toHaveLength(20);

  const second = await open({ lastEventId: cursor });
  await until(reaches(second, missed.at(-1)!), "the 20 missed events");
  expect(second.messages.map((m) => m.id)).toEqual(missed);
  const events = second.events();
  expect(events.map((e) => e.type)).toEqual([...Array(10).fill("created"), ...Array(10).fill("claimed")]);
  expect(events.map((e) => e.eventId)).toEqual(missed.map(eventIdOf));
  expect(second.messages.every((m) => m.event === "task")).toBe(true);

  await createTasks(database.db, actor, 2, { title: "live" });
  const last = await lastTableCursor(database);
  await until(reaches(second, last), "2 live events");
  expect(second.messages.map((m) => m.id)).toEqual(await tableCursors(database, { after: cursor }));
  expect(second.messages).toHaveLength(22);
  second.close();
});

test("an event held in an open transaction while 1,000 transitions commit reaches a client that reconnected meanwhile: 0 missed, 0 repeated", async () => {
  const from = await lastTableCursor(database);
  const before = await open({ lastEventId: from });
  await makeQueue(database.db, "held");
  const held = await openTransaction(database);
  const heldTask = await held.run(createTask, { title: "held", queue: "held" }, actor);
  const writers = await independentClients(database, 4);
  let after: SseClient | null = null;
  try {
    await Promise.all(writers.map((w) => createAndClaim(w.db, actor, 62, "bulk")));
    // Mid-way: the client drops and comes back with its cursor (nothing past the held
    // transaction may have reached it, so its cursor is from before it).
    before.close();
    await before.ended;
    const cursor = before.lastEventId() ?? from;
    after = await open({ lastEventId: cursor });
    await Promise.all(writers.map((w) => createAndClaim(w.db, actor, 63, "bulk")));
    expect(before.messages).toEqual([]);

    await held.commit();
    const table = await tableCursors(database, { after: from });
    expect(table).toHaveLength(1 + 1000);
    await until(reaches(after, table.at(-1)!), () => `all ${table.length} events (got ${after!.messages.length})`);
    const received = [...before.messages, ...after.messages].map((m) => m.id);
    expect(received).toEqual(table);
    expect(after.events().filter((e) => e.taskId === heldTask.id)).toHaveLength(1);
  } finally {
    after?.close();
    await held.rollback().catch(() => {});
    await Promise.all(writers.map((w) => w.client.end({ timeout: 5 })));
  }
});

describe("the request", () => {
  test("?queue= and ?task= filter the stream", async () => {
    const from = await lastTableCursor(database);
    const [redTask] = [...(await createTasks(database.db, actor, 1, { queue: "red" })).keys()];
    const red = await open({ query: "?queue=red", lastEventId: from });
    const one = await open({ query: `?task=${redTask}`, lastEventId: from });
    const all = await open({ lastEventId: from });
    await createTasks(database.db, actor, 2, { queue: "blue" });
    await createTasks(database.db, actor, 1, { queue: "red" });
    await perform(claimNext, { queue: "red" }, { db: database.db, actor });
    const last = await lastTableCursor(database);
    await until(reaches(all, last), "every event on the unfiltered stream");
    const redTable = await tableCursors(database, { after: from, queue: "red" });
    const taskTable = await tableCursors(database, { after: from, taskId: redTask });
    await until(reaches(red, redTable.at(-1)!), "the red events");
    await until(reaches(one, taskTable.at(-1)!), "the one task's events");
    expect(red.messages.map((m) => m.id)).toEqual(redTable);
    expect(red.events().every((e) => e.queue === "red")).toBe(true);
    expect(one.messages.map((m) => m.id)).toEqual(taskTable);
    expect(taskTable).toHaveLength(2);
    for (const c of [red, one, all]) c.close();
  });

  test("?after= resumes like Last-Event-ID, and the header wins when both are given", async () => {
    await createTasks(database.db, actor, 3, { title: "resume" });
    const [a, b] = (await tableCursors(database)).slice(-3);
    const byQuery = await open({ query: `?after=${a}` });
    const both = await open({ query: `?after=${a}`, lastEventId: b });
    const last = await lastTableCursor(database);
    await until(() => byQuery.lastEventId() === last && both.lastEventId() === last, "both streams to catch up");
    expect(byQuery.messages.map((m) => m.id)).toEqual(await tableCursors(database, { after: a }));
    expect(both.messages.map((m) => m.id)).toEqual(await tableCursors(database, { after: b }));
    byQuery.close();
    both.close();
  });

  test("a malformed cursor is a 400 in the error shape, from the header or the query", async () => {
    for (const bad of ["nonsense", "12", "1:2:3", "-1:5", "99999999999999999999:1"]) {
      const header = expectError(await api.get("/events", token, { "last-event-id": bad }), 400, "invalid_request");
      expect(header.field).toBe("Last-Event-ID");
      const query = expectError(await api.get(`/events?after=${encodeURIComponent(bad)}`, token), 400, "invalid_request");
      expect(query.field).toBe("after");
    }
    expectError(await api.get("/events?queue=", token), 400, "invalid_request");
    expectError(await api.get("/events?task=abc", token), 400, "invalid_request");
  });

  test("no token, or an unknown one, is a 401", async () => {
    expectError(await api.get("/events"), 401, "unauthorized");
    expectError(await api.get("/events", "cb_not-a-real-token"), 401, "unauthorized");
  });
});

test("after the server's LISTEN backend is terminated, events written after it keep arriving", async () => {
  const client = await open({ lastEventId: await lastTableCursor(database) });
  await createTasks(database.db, actor, 1, { title: "before" });
  await until(() => client.messages.length === 1, "the event before the termination");
  const listenBackend = async () =>
    (await database.client<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE application_name = 'claimboard-listen' AND datname = current_database()`)[0]?.pid;
  const pid = await listenBackend();
  expect(pid, "the server's LISTEN connection").toBeDefined();

  const terminatedAt = performance.now();
  await database.client`SELECT pg_terminate_backend(${pid!})`;
  await createTasks(database.db, actor, 1, { title: "right after" });
  await until(() => client.messages.length === 2, "the first event after the termination");
  console.log(`[realtime] server: LISTEN backend terminated → first event on the SSE stream: ${Math.round(client.messages[1]!.receivedAt - terminatedAt)} ms`);

  const deadline = performance.now() + 15_000;
  let again: number | undefined;
  while ((again = await listenBackend()) === undefined || again === pid) {
    if (performance.now() > deadline) throw new Error("the server did not LISTEN again");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await createTasks(database.db, actor, 5, { title: "after" });
  const last = await lastTableCursor(database);
  await until(reaches(client, last), "the events after the reconnect");
  expect(client.messages).toHaveLength(7);
  client.close();
});
