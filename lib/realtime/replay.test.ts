import type { SQL } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createActor, createTask, perform, type ActorRef } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { readOf, recording } from "@/test/plans";
import { makeQueue } from "@/test/queues";
import { collect, until } from "@/test/realtime/helpers";
import type { FeedEvent } from "./feed";
import { Hub } from "./hub";

// Replay from an old cursor (`?after=0:0`) with a filter: what it costs the database. Rows
// read are counted by re-running every query the hub and its subscribers sent under
// EXPLAIN ANALYZE (not by timing); the pool's share is counted in queries in flight.

const LOG = 3_000;
let database: TestDatabase;
let actor: ActorRef;
let quietTask: string;

/** Queue-level facts, many at once: a big log without thousands of engine calls. */
async function appendFacts(queue: string, count: number): Promise<void> {
  await database.client`
    INSERT INTO task_events (queue, type, actor_id, created_at)
    SELECT ${queue}, 'settings_changed', ${actor.id}::uuid, now() FROM generate_series(1, ${count})`;
}

beforeAll(async () => {
  database = await freshDatabase();
  actor = await createActor(database.db, "user", "Writer");
  await makeQueue(database.db, "busy");
  await makeQueue(database.db, "quiet");
  await appendFacts("busy", LOG / 2);
  const task = await perform(createTask, { title: "the quiet one", queue: "quiet" }, { db: database.db, actor });
  if (!task.ok) throw new Error("createTask failed");
  quietTask = task.value.id;
  await appendFacts("quiet", 9);
  await appendFacts("busy", LOG / 2);
  // The statistics a log of this size has by the time anyone replays it (autovacuum's
  // ANALYZE may or may not have come yet): without them the planner guesses the partition
  // is tiny and reads it whole.
  await database.client`ANALYZE task_events`;
  // A replay reads only below the cluster's visibility horizon; on a shared server another
  // session's open transaction may hold it back a moment. Wait until it has passed the log,
  // so the replay reads it all and EXPLAIN, run afterwards, sees what the replay saw.
  for (let i = 0; ; i++) {
    const [row] = await database.client<{ passed: boolean }[]>`
      SELECT pg_snapshot_xmin(pg_current_snapshot()) > max(tx_id) AS passed FROM task_events`;
    if (row?.passed) break;
    if (i > 600) throw new Error("the visibility horizon did not pass the log in 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});
afterAll(() => database?.close());

/** Rows the query took out of task_events (its partitions), kept or filtered away. */
const rowsRead = (query: SQL) => readOf(database.db, query, "task_events", "rows");

// The hubs below are never started: a subscriber replays by itself, and only its reads are
// counted, not the hub's reads of new events (nor its LISTEN connection).

async function replayCost(filter: { queue?: string; taskId?: string }, expected: number) {
  const recorder = recording(database.db);
  const hub = new Hub({ db: () => recorder.db, url: database.url });
  try {
    const replay = collect(hub, "0:0", filter);
    await until(() => replay.events.length >= expected && recorder.counts.inFlight === 0, () => `${expected} replayed events (got ${replay.events.length})`);
    replay.subscriber.close();
    let read = 0;
    for (const query of recorder.queries) read += await rowsRead(query);
    return { events: replay.events as FeedEvent[], read };
  } finally {
    await hub.stop();
  }
}

test(`replay of a queue that matches 10 events of ${LOG} reads those, not the log`, async () => {
  const { events, read } = await replayCost({ queue: "quiet" }, 10);
  expect(events.map((e) => e.queue)).toEqual(Array(10).fill("quiet"));
  expect(read, "rows read from task_events").toBeLessThanOrEqual(20);
});

test("replay of one task reads that task's events, not the log", async () => {
  const { events, read } = await replayCost({ taskId: quietTask }, 1);
  expect(events.map((e) => e.type)).toEqual(["created"]);
  expect(read, "rows read from task_events").toBeLessThanOrEqual(10);
});

test("replay of a filter that matches nothing reads nothing", async () => {
  const { events, read } = await replayCost({ queue: "default" }, 0);
  expect(events).toEqual([]);
  expect(read, "rows read from task_events").toBeLessThanOrEqual(5);
});

test("24 streams replaying the whole log hold at most 2 of the pool's 4 connections: a write is served meanwhile", async () => {
  const pool = database.connect({ max: 4 });
  const recorder = recording(pool.db);
  const hub = new Hub({ db: () => recorder.db, url: database.url });
  try {
    const streams = Array.from({ length: 24 }, () => collect(hub, "0:0"));
    const total = LOG + 10;
    const finished = () => streams.filter((s) => s.events.length >= total).length;
    await until(() => recorder.counts.done >= 24, "the replays to start");
    const written = await perform(createTask, { title: "written meanwhile", queue: "quiet" }, { db: pool.db, actor });
    expect(written.ok).toBe(true);
    const finishedAtWrite = finished();
    await until(() => finished() === 24, () => `every replay to finish (${finished()} of 24)`, 60_000);
    for (const stream of streams) stream.subscriber.close();
    // Replays queue for two connections, so the write never waits behind them: it
    // committed while most replays were still reading.
    expect(recorder.counts.peak, "replay queries in flight on the pool at once").toBeLessThanOrEqual(2);
    expect(finishedAtWrite, "replays already finished when the write committed").toBeLessThan(24);
  } finally {
    await hub.stop();
  }
});
