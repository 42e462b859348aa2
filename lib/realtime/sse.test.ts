import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { databaseClock, type ActorRef } from "@/lib/tasks";
import { appendEvents } from "@/lib/tasks/core/events";
import type { TestDatabase } from "@/test/db";
import { createTasks, lastTableCursor, tableCursors, until, hubFixture, type HubFixture } from "@/test/realtime/helpers";
import { parseEventStream, type SseItem } from "@/test/sse";
import { formatCursor, parseCursor } from "./cursor";
import { currentPosition, readFeed } from "./feed";
import type { Hub } from "./hub";
import { eventStream, formatMessage, KEEPALIVE_MS, MAX_BUFFERED_MESSAGES } from "./sse";

let fixture: HubFixture;
let database: TestDatabase;
let hub: Hub;
let actor: ActorRef;
beforeAll(async () => {
  fixture = await hubFixture("Streamer");
  ({ database, hub, actor } = fixture);
});
afterAll(() => fixture?.close());
afterEach(() => {
  vi.useRealTimers();
});

/** eventStream's body, parsed as a client would, collected in the background. */
function streamOf(after: string | null, filter = {}) {
  const abort = new AbortController();
  const response = eventStream(hub, filter, after === null ? null : parseCursor(after), abort.signal);
  const items: SseItem[] = [];
  const done = (async () => {
    for await (const item of parseEventStream(response.body!)) items.push(item);
  })();
  const messages = () => items.filter((i) => i.kind === "message");
  return { response, items, messages, done, abort };
}

test("an event is one message: `id:` its cursor, `event: task`, `data:` the event object on one line", async () => {
  // A title can no longer hold a new line (issue 25: titles are one line); a stored one could,
  // and the event's data carries no title, so the message stays one line either way.
  await createTasks(database.db, actor, 1, { queue: "fmt", title: "Line one" });
  await database.db.execute(sql`UPDATE tasks SET title = 'Line one' || chr(10) || 'line two' WHERE queue = 'fmt'`);
  const after = { txId: 0n, eventId: 0n };
  let event;
  for (let i = 0; !event && i < 300; i++) {
    event = (await readFeed(database.db, after)).events.find((e) => e.queue === "fmt");
    if (!event) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const text = formatMessage(event!);
  const [id, name, data, ...rest] = text.split("\n");
  expect(id).toBe(`id: ${formatCursor(event!.cursor)}`);
  expect(name).toBe("event: task");
  expect(rest).toEqual(["", ""]);
  const body = JSON.parse(data!.slice("data: ".length)) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["actor", "at", "eventId", "queue", "status", "taskId", "type", "version"]);
  expect(body).toMatchObject({ eventId: event!.eventId, taskId: event!.taskId, queue: "fmt", type: "created", version: 1, status: "queued", actor });
  expect(body.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test("the response is an uncached, untransformed event stream that opens with its resume position and a comment", async () => {
  const from = formatCursor(await currentPosition(database.db));
  const stream = streamOf(from);
  expect(stream.response.status).toBe(200);
  expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  expect(stream.response.headers.get("cache-control")).toBe("no-cache, no-transform");
  await createTasks(database.db, actor, 2);
  await until(() => stream.messages().length === 2, "2 messages");
  expect(stream.items.slice(0, 2)).toMatchObject([{ kind: "id", id: from }, { kind: "comment", text: "connected" }]);
  expect(stream.messages().map((m) => m.id)).toEqual(await tableCursors(database, { after: from }));
  stream.abort.abort();
  await stream.done;
});

test("a stream opened without a cursor first tells the client where it starts: resuming from there misses nothing", async () => {
  const stream = streamOf(null);
  await until(() => stream.items.length >= 2, "the opening lines");
  const start = stream.items[0]!;
  expect(start.kind).toBe("id");
  const startId = (start as { id: string }).id;
  expect(parseCursor(startId)).not.toBeNull();
  // The client goes away before any event, then events are written: resuming from the
  // opening id (what an EventSource would send) delivers them.
  stream.abort.abort();
  await stream.done;
  await createTasks(database.db, actor, 2, { title: "while away" });
  const resumed = streamOf(startId);
  const last = await lastTableCursor(database);
  await until(() => resumed.messages().at(-1)?.id === last, "the events written while away");
  expect(resumed.messages().map((m) => m.id)).toEqual(await tableCursors(database, { after: startId }));
  expect(resumed.messages().length).toBeGreaterThanOrEqual(2);
  resumed.abort.abort();
  await resumed.done;
});

test(`a keepalive comment goes out every ${KEEPALIVE_MS / 1000} s`, async () => {
  // Only the stream's interval is faked; the hub's timers and the database are real.
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
  const stream = streamOf(null);
  const keepalives = () => stream.items.filter((i) => i.kind === "comment" && i.text === "keepalive").length;
  vi.advanceTimersByTime(KEEPALIVE_MS - 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(keepalives()).toBe(0);
  vi.advanceTimersByTime(1);
  await until(() => keepalives() === 1, "the first keepalive");
  vi.advanceTimersByTime(KEEPALIVE_MS * 2);
  await until(() => keepalives() === 3, "two more keepalives");
  stream.abort.abort();
  await stream.done;
  // Stopped with the stream: no keepalive is written into a closed stream.
  expect(vi.getTimerCount()).toBe(0);
});

test("the client going away (abort or cancel) ends its subscription", async () => {
  const before = hub.stats.subscribers;
  const aborted = streamOf(null);
  const cancelled = eventStream(hub, {}, null, new AbortController().signal);
  expect(hub.stats.subscribers).toBe(before + 2);
  aborted.abort.abort();
  await aborted.done;
  await cancelled.body!.cancel();
  await until(() => hub.stats.subscribers === before, "both subscriptions to end");
});

test("a client that never reads is dropped past MAX_BUFFERED_MESSAGES; a reading one gets everything", async () => {
  const from = formatCursor(await currentPosition(database.db));
  const abort = new AbortController();
  const unread = eventStream(hub, {}, parseCursor(from), abort.signal);
  const reading = streamOf(from);
  const subscribers = hub.stats.subscribers;
  const n = MAX_BUFFERED_MESSAGES + 200;
  await database.db.transaction((tx) =>
    appendEvents(tx, databaseClock, Array.from({ length: n }, () => ({ taskId: null, queue: "default", type: "breaker_reset" as const, actorId: actor.id, payload: {} }))),
  );
  await until(() => hub.stats.subscribers === subscribers - 1, "the unread stream to be dropped");
  const last = await lastTableCursor(database);
  await until(() => reading.messages().at(-1)?.id === last, `all ${n} events on the reading stream`);
  expect(reading.messages().map((m) => m.id)).toEqual(await tableCursors(database, { after: from }));

  // What the dropped client had buffered is still readable, then the stream ends: its
  // EventSource reconnects with the last id it got and resumes from there.
  const buffered: string[] = [];
  for await (const item of parseEventStream(unread.body!)) if (item.kind === "message") buffered.push(item.id);
  expect(buffered.length).toBeGreaterThanOrEqual(MAX_BUFFERED_MESSAGES);
  expect(buffered).toEqual((await tableCursors(database, { after: from })).slice(0, buffered.length));
  reading.abort.abort();
  await reading.done;
});
