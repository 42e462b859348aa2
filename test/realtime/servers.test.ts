import { afterAll, beforeAll, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { claimNext, createActor, perform, type ActorRef } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { Api, expectTaskResponse } from "@/test/http/helpers";
import { startServer, type TestServer } from "@/test/server";
import { openEventStream } from "@/test/sse";
import { createTasks, lastTableCursor, tableCursors, until } from "./helpers";
import { makeQueue } from "@/test/queues";

// Several server processes on one database: each has its own hub and LISTEN connection,
// and the only thing they share is task_events.

let database: TestDatabase;
let one: TestServer;
let two: TestServer | null = null;
let token: string;
let actor: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  [one, two] = await Promise.all([startServer(database.url), startServer(database.url)]);
  token = (await createAgentToken(database.db, { name: "agent-1" })).token;
  actor = await createActor(database.db, "user", "Direct writer");
});
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await database?.close();
});

const events = (server: TestServer, lastEventId?: string, query = "") =>
  openEventStream(`${server.url}/api/v1/events${query}`, { token, lastEventId });

test("a change made through one server reaches an SSE subscriber of the other, both ways", async () => {
  const [onOne, onTwo] = await Promise.all([events(one), events(two!)]);
  // A stream without a cursor starts at its server's position: wait until both are live.
  await until(() => onOne.comments.includes("connected") && onTwo.comments.includes("connected"), "both streams to open");

  await makeQueue(database.db, "cross");
  const viaOne = expectTaskResponse(await new Api(`${one.url}/api/v1`).post("/tasks", token, { title: "Made on one", queue: "cross" }), 201);
  await until(() => onTwo.events().some((e) => e.taskId === viaOne.id), "server two's subscriber to see the task made on one");
  const viaTwo = expectTaskResponse(await new Api(`${two!.url}/api/v1`).post("/tasks", token, { title: "Made on two", queue: "cross" }), 201);
  await until(() => onOne.events().some((e) => e.taskId === viaTwo.id), "server one's subscriber to see the task made on two");

  const last = await lastTableCursor(database);
  await until(() => onOne.lastEventId() === last && onTwo.lastEventId() === last, "both streams to reach the newest event");
  expect(onOne.messages.map((m) => m.id)).toEqual(onTwo.messages.map((m) => m.id));
  expect(onTwo.events().find((e) => e.taskId === viaOne.id)).toMatchObject({ type: "created", queue: "cross", actor: { name: "agent-1", kind: "agent" } });
  onOne.close();
  onTwo.close();
});

test("clients of a server that restarts catch up on everything written while it was down, exactly, in order", async () => {
  const client = await events(two!, await lastTableCursor(database));
  // A browser's EventSource resends the last id it was given; one that got no event yet has
  // only the id the server sent when it connected.
  const quiet = await events(two!, undefined, "?queue=quiet");
  await until(() => quiet.comments.includes("connected"), "the quiet stream to open");
  await createTasks(database.db, actor, 3, { title: "before the restart" });
  const seen = await lastTableCursor(database);
  await until(() => client.lastEventId() === seen, "the events before the restart");
  const cursor = client.lastEventId()!;

  // SIGTERM: next start waits for open responses, so the streams must end for it to exit.
  await two!.stop();
  two = null;
  await Promise.all([client.ended, quiet.ended]);
  await createTasks(database.db, actor, 8, { title: "while down" });
  for (let i = 0; i < 4; i++) await perform(claimNext, {}, { db: database.db, actor });
  await createTasks(database.db, actor, 2, { title: "while down", queue: "quiet" });
  const missed = await tableCursors(database, { after: cursor });
  expect(missed).toHaveLength(14);

  two = await startServer(database.url);
  const resumed = await events(two, cursor);
  const quietBack = await events(two, quiet.lastEventId(), "?queue=quiet");
  await until(() => resumed.lastEventId() === missed.at(-1), "the 14 events written while the server was down");
  expect(resumed.messages.map((m) => m.id)).toEqual(missed);
  expect(resumed.events().map((e) => e.type)).toEqual([...Array(8).fill("created"), ...Array(4).fill("claimed"), "created", "created"]);
  await until(() => quietBack.messages.length === 2, "the quiet client's 2 events");
  expect(quietBack.messages.map((m) => m.id)).toEqual(missed.slice(-2));

  // And live again on the new process.
  expectTaskResponse(await new Api(`${two.url}/api/v1`).post("/tasks", token, { title: "after the restart" }), 201);
  const last = await lastTableCursor(database);
  await until(() => resumed.lastEventId() === last, "a live event on the new server");
  expect(resumed.messages.map((m) => m.id)).toEqual(await tableCursors(database, { after: cursor }));
  resumed.close();
  quietBack.close();
});
