import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { appendEvents } from "@/lib/tasks/core/events";
import { claimNext, createTask, databaseClock, perform, type ActorRef } from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import type { TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { collect, createAndClaim, createTasks, lastTableCursor, openTransaction, tableCursors, until, hubFixture, type HubFixture } from "@/test/realtime/helpers";
import { formatCursor } from "./cursor";
import { currentPosition } from "./feed";
import { connectDatabase } from "@/db/client";
import { Hub } from "./hub";

let fixture: HubFixture;
let database: TestDatabase;
let hub: Hub;
let actor: ActorRef;
beforeAll(async () => {
  fixture = await hubFixture("A");
  ({ database, hub, actor } = fixture);
});
afterAll(() => fixture?.close());

const position = async () => formatCursor(await currentPosition(database.db));

test("live events reach a subscriber, and a resumed subscriber gets exactly what it missed", async () => {
  const from = await position();
  const live = collect(hub);
  await createTasks(database.db, actor, 5);
  await until(() => live.events.length === 5, "5 live events");
  const cursor = live.cursors()[2]!;
  live.subscriber.close();

  for (let i = 0; i < 20; i++) await perform(claimNext, {}, { db: database.db, actor });
  const resumed = collect(hub, cursor);
  const last = await lastTableCursor(database);
  await until(() => resumed.last() === last, "the resumed subscriber to reach the newest event");
  expect(resumed.cursors()).toEqual(await tableCursors(database, { after: cursor }));
  expect(resumed.events.map((e) => e.type)).toEqual(["created", "created", ...Array(5).fill("claimed")]);
  expect(resumed.events[2]!.status).toBe("claimed");
  expect([...live.cursors().slice(0, 3), ...resumed.cursors()]).toEqual(await tableCursors(database, { after: from }));
});

test("a subscriber without a cursor gets no history replay, only what the hub reads from then on", async () => {
  await createTasks(database.db, actor, 2, { title: "before" });
  const fresh = collect(hub);
  await createTasks(database.db, actor, 3, { title: "after" });
  const last = await lastTableCursor(database);
  await until(() => fresh.last() === last, "3 live events");
  const table = await tableCursors(database);
  // Its start is the hub's position, which may trail the newest commit (or the cluster's
  // visibility horizon may): a suffix of the table, never a replay from the beginning.
  expect(fresh.cursors()).toEqual(table.slice(-fresh.events.length));
  expect(fresh.events.length).toBeGreaterThanOrEqual(3);
  expect(fresh.events.length).toBeLessThan(table.length);
  fresh.subscriber.close();
});

test("subscribers that start at the hub's position read nothing of their own: 200 opened together go live without a replay", async () => {
  await createTasks(database.db, actor, 2, { title: "before" });
  const replays = hub.replays.runs;
  const live = Array.from({ length: 200 }, () => collect(hub));
  await createTasks(database.db, actor, 3, { title: "after" });
  const last = await lastTableCursor(database);
  await until(() => live.every((c) => c.last() === last), "all 200 to see the 3 new events");
  // Each start is the hub's cursor, so the hub's next batch begins exactly there: a replay
  // read per stream (1,000 browsers reconnecting at once) would only queue at the gate.
  expect(hub.replays.runs).toBe(replays);
  const behind = collect(hub, (await tableCursors(database)).at(-4)!);
  await until(() => behind.last() === last, "a subscriber behind the hub to catch up");
  expect(hub.replays.runs).toBeGreaterThan(replays);
  for (const c of [...live, behind]) c.subscriber.close();
});

test("streams that open at the hub's position while a transaction holds the horizon read nothing of their own, and get every held event once when it ends", async () => {
  const warm = collect(hub);
  await createTasks(database.db, actor, 2, { title: "warm-up" });
  const warmLast = await lastTableCursor(database);
  await until(() => warm.last() === warmLast, "the warm-up batch");
  warm.subscriber.close();

  await makeQueue(database.db, "held-open");
  const held = await openTransaction(database);
  try {
    const heldTask = await held.run(createTask, { title: "held", queue: "held-open" }, actor);
    await createTasks(database.db, actor, 3, { title: "committed behind the held one" });
    // The hub's position is still the warm-up's last event (its batch went out before these
    // streams existed), with committed events waiting past the horizon. Fresh streams and
    // ones resuming at that position start there, and none reads for itself.
    const replays = hub.replays.runs;
    const fresh = Array.from({ length: 50 }, () => collect(hub));
    expect(new Set(fresh.map((c) => formatCursor(c.subscriber.position)))).toEqual(new Set([warmLast]));
    const resumed = Array.from({ length: 10 }, () => collect(hub, warmLast));
    await createTasks(database.db, actor, 1, { title: "sentinel before commit" });
    expect([...fresh, ...resumed].every((c) => c.events.length === 0)).toBe(true);

    await held.commit();
    const last = await lastTableCursor(database);
    await until(() => [...fresh, ...resumed].every((c) => c.last() === last), "every stream to reach the newest event");
    const table = await tableCursors(database, { after: warmLast });
    expect(table).toHaveLength(1 + 3 + 1);
    for (const c of [...fresh, ...resumed]) {
      expect(c.cursors()).toEqual(table);
      expect(c.events.filter((e) => e.taskId === heldTask.id)).toHaveLength(1);
    }
    expect(hub.replays.runs).toBe(replays);
    for (const c of [...fresh, ...resumed]) c.subscriber.close();
  } finally {
    await held.rollback().catch(() => {});
  }
});

test("an event held in an open transaction while 400 transitions commit is delivered once, to a live and to a resumed subscriber", async () => {
  const from = await position();
  const live = collect(hub, from);
  const leaving = collect(hub, from);
  await createTasks(database.db, actor, 5, { title: "warm-up" });
  await until(() => leaving.events.length === 5 && live.events.length === 5, "warm-up events");

  await makeQueue(database.db, "held");
  const held = await openTransaction(database);
  const heldTask = await held.run(createTask, { title: "held", queue: "held" }, actor);
  const writers = await independentClients(database, 4);
  try {
    // (test/realtime/stream.test.ts does 1,000 over HTTP.) Half of them, then the subscriber
    // goes away mid-stream and comes back with its cursor.
    await Promise.all(writers.map((w) => createAndClaim(w.db, actor, 25, "bulk")));
    const cursor = leaving.last()!;
    leaving.subscriber.close();
    const back = collect(hub, cursor);
    await Promise.all(writers.map((w) => createAndClaim(w.db, actor, 25, "bulk")));
    expect((await tableCursors(database, { after: from })).length).toBe(5 + 400);

    // Everything after the held transaction's id waits for it: nothing may be delivered yet.
    await createTasks(database.db, actor, 1, { title: "sentinel before commit" });
    expect(back.events).toEqual([]);
    expect(live.events).toHaveLength(5);

    await held.commit();
    const last = await lastTableCursor(database);
    await until(() => back.last() === last && live.last() === last, () => `both to reach ${last}: back ${back.events.length}, live ${live.events.length}`);
    const table = await tableCursors(database, { after: from });
    expect(table).toHaveLength(5 + 1 + 400 + 1);
    expect(live.cursors()).toEqual(table);
    expect([...leaving.cursors(), ...back.cursors()]).toEqual(table);
    expect(back.events.filter((e) => e.taskId === heldTask.id)).toHaveLength(1);
    back.subscriber.close();
    live.subscriber.close();
  } finally {
    await held.rollback().catch(() => {});
    await Promise.all(writers.map((w) => w.client.end({ timeout: 5 })));
  }
});

test("?queue and ?task filters pass only their events, and the cursor still moves past the others", async () => {
  const from = await position();
  const [task] = await Promise.all([createTasks(database.db, actor, 1, { queue: "red" })]);
  const redTaskId = [...task.keys()][0]!;
  const red = collect(hub, from, { queue: "red" });
  const one = collect(hub, from, { taskId: redTaskId });
  const all = collect(hub, from);
  await createTasks(database.db, actor, 3, { queue: "blue" });
  await createTasks(database.db, actor, 2, { queue: "red" });
  await perform(claimNext, { queue: "red" }, { db: database.db, actor });
  const last = await lastTableCursor(database);
  await until(() => all.last() === last, "every event");
  await until(() => red.events.length === 4, "the red events");
  expect(red.cursors()).toEqual(await tableCursors(database, { after: from, queue: "red" }));
  expect(red.events.every((e) => e.queue === "red")).toBe(true);
  await until(() => one.events.length === 2, "the one task's events");
  expect(one.cursors()).toEqual(await tableCursors(database, { after: from, taskId: redTaskId }));
  for (const c of [red, one, all]) c.subscriber.close();
});

test("a subscriber whose send returns false is dropped; the others get every event", async () => {
  const from = await position();
  let offered = 0;
  const slow = hub.subscribe({ filter: {}, send: (events) => ((offered += events.length), false) }, null);
  const fast = collect(hub, from);
  await createTasks(database.db, actor, 10, { title: "burst" });
  await slow.closed;
  expect(offered).toBeGreaterThan(0);
  const last = await lastTableCursor(database);
  await until(() => fast.last() === last, "the fast subscriber to get everything");
  expect(fast.cursors()).toEqual(await tableCursors(database, { after: from }));
  fast.subscriber.close();
});

test("a subscriber with more than maxPending events waiting is dropped, and resumes by cursor without loss", async () => {
  const from = await position();
  const got: string[] = [];
  const small = hub.subscribe({ filter: {}, maxPending: 5, send: (events) => (got.push(...events.map((e) => formatCursor(e.cursor))), true) }, null);
  // Six events in one transaction reach the hub as one batch: more than this subscriber may queue.
  await database.db.transaction((tx) =>
    appendEvents(tx, databaseClock, Array.from({ length: 6 }, () => ({ taskId: null, queue: "default", type: "breaker_reset" as const, actorId: actor.id, payload: {} }))),
  );
  await small.closed;
  // Its own first read may have delivered some or all of the six before the hub's batch came.
  const resumeFrom = got.at(-1) ?? from;
  const resumed = collect(hub, resumeFrom);
  const last = await lastTableCursor(database);
  await until(() => (resumed.last() ?? resumeFrom) === last, () => `the resumed subscriber (closed: ${resumed.closed()}, has ${resumed.events.length})`);
  expect([...got, ...resumed.cursors()]).toEqual(await tableCursors(database, { after: from }));
  resumed.subscriber.close();
});

test("stop() closes every subscriber", async () => {
  const other = new Hub({ db: () => database.db, url: database.url });
  await other.start();
  const subs = [collect(other), collect(other)];
  expect(other.stats.subscribers).toBe(2);
  await other.stop();
  await Promise.all(subs.map((s) => s.subscriber.closed));
  expect(other.stats.subscribers).toBe(0);
});

test("a hub whose pool was replaced reads on from the new one", async () => {
  let pool = connectDatabase(database.url, { max: 2 });
  const other = new Hub({ db: () => pool.db, url: database.url });
  await other.start();
  try {
    await pool.client.end(); // what replaceDatabase does to a pool whose call did not settle in time
    pool = connectDatabase(database.url, { max: 2 });
    // The stream's client reconnects (its reads on the ended pool closed it): the hub must
    // serve it from the new pool, not fail it again on the old one.
    const live = collect(other);
    await createTasks(database.db, actor, 2, { title: "after the new pool" });
    const last = await lastTableCursor(database);
    await until(() => live.last() === last, "the events written after the pool was replaced");
    live.subscriber.close();
  } finally {
    await other.stop();
    await pool.client.end();
  }
});

test("a hub read with no answer in time is given up and tried again; the stream carries on", async () => {
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  process.env.REQUEST_DEADLINE_SECONDS = "1";
  const other = new Hub({ db: () => database.db, url: database.url });
  await other.start();
  const holder = await database.client.reserve();
  try {
    const live = collect(other);
    await holder`BEGIN`;
    await holder`LOCK TABLE task_events IN ACCESS EXCLUSIVE MODE`; // shorter than lock_timeout's 5 s
    other.wake();
    await until(() => errors.mock.calls.some(([m]) => String(m).includes("[realtime] reading events: no answer from the database in 1 s")),
      "the deadline to give the read up");
    await holder`ROLLBACK`;
    await createTasks(database.db, actor, 2, { title: "after the wedged read" });
    const last = await lastTableCursor(database);
    await until(() => live.last() === last, "the events written after it");
    live.subscriber.close();
  } finally {
    delete process.env.REQUEST_DEADLINE_SECONDS;
    errors.mockRestore();
    holder.release();
    await other.stop();
  }
});
