import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claimBatch, claimNext, complete, setQueuePaused, taskHistory, type ActorRef, type Result } from "@/lib/tasks";
import { connectDatabase, type Db } from "@/db/client";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, queueEvents, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let bilal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  bilal = await f.actor("Bilal");
});
afterAll(async () => {
  await f?.close();
});

/**
 * Creates tasks at chosen clock offsets (seconds from now), in the order listed, so ids
 * and created_at disagree; leaves the clock after the latest of them.
 */
async function tasksAt(queue: string, specs: [title: string, priority: number, offset: number][]) {
  const base = f.clock.time.getTime();
  for (const [title, priority, offset] of specs) {
    f.clock.set(new Date(base + offset * 1000));
    await f.task(title, { queue, priority });
  }
  f.clock.set(new Date(base + 100_000));
}

// Listed in creation (id) order; the claim order is priority DESC, then created_at, then id.
const SPECS: [string, number, number][] = [
  ["p0 at 20", 0, 20],
  ["p5 at 10", 5, 10],
  ["p5 at 30", 5, 30],
  ["p5 at 10, later id", 5, 10],
  ["p-1 at 0", -1, 0],
  ["p9 at 40", 9, 40],
  ["p0 at 5", 0, 5],
];
const CLAIM_ORDER = ["p9 at 40", "p5 at 10", "p5 at 10, later id", "p5 at 30", "p0 at 5", "p0 at 20", "p-1 at 0"];

describe("claimNext", () => {
  test("hands tasks out by priority DESC, then oldest created_at, then lowest id", async () => {
    await tasksAt("order", SPECS);
    const titles: string[] = [];
    for (let next = await f.must(claimNext, { queue: "order" }, amal); next; next = await f.must(claimNext, { queue: "order" }, amal)) {
      titles.push(next.title);
      expect(await taskRow(f.db, next.id)).toMatchObject({ status: "claimed", ownerId: amal.id, version: 2 });
    }
    expect(titles).toEqual(CLAIM_ORDER);
    const claimed = await queueEvents(f.db, "order", "claimed");
    expect(claimed).toHaveLength(SPECS.length);
  });

  test("a batch claims in the same order, in one transaction", async () => {
    await tasksAt("batch-order", SPECS);
    const batch = await f.must(claimBatch, { queue: "batch-order", limit: 5 }, amal);
    expect(batch.map((t) => t.title)).toEqual(CLAIM_ORDER.slice(0, 5));
    const claimed = await queueEvents(f.db, "batch-order", "claimed");
    expect(claimed.map((e) => e.txId)).toEqual(Array(5).fill(claimed[0]!.txId));
    const rest = await f.must(claimBatch, { queue: "batch-order", limit: 100 }, amal);
    expect(rest.map((t) => t.title)).toEqual(CLAIM_ORDER.slice(5));
    expect(await f.must(claimBatch, { queue: "batch-order", limit: 3 }, amal)).toEqual([]);
  });

  test("a lapsed lease takes its place in the same order as the queued tasks", async () => {
    const queue = "mixed";
    await f.task("held p3", { queue, priority: 3 });
    const held = await f.must(claimNext, { queue }, amal);
    await f.task("queued p5", { queue, priority: 5 });
    await f.task("queued p1", { queue, priority: 1 });
    f.clock.advance(121);

    const order = [];
    for (let i = 0; i < 4; i++) order.push((await f.must(claimNext, { queue }, bilal))?.title ?? null);
    expect(order).toEqual(["queued p5", "held p3", "queued p1", null]);
    expect(await taskRow(f.db, held!.id)).toMatchObject({ ownerId: bilal.id, version: 4 });
    expect(await eventTypes(f.db, held!.id)).toEqual(["created", "claimed", "lease_expired", "claimed"]);
  });

  test("a lease that still runs is never handed out, even beside a lapsed one", async () => {
    const queue = "live-beside-lapsed";
    const lapsing = await f.task("lapses", { queue, priority: 1 });
    await f.must(claimNext, { queue, leaseSeconds: 30 }, amal);
    f.clock.advance(2);
    const live = await f.task("live", { queue, priority: 9 });
    await f.must(claimNext, { queue, leaseSeconds: 30 }, amal);
    f.clock.advance(29); // the first lease lapsed 1 s ago; the second, better-placed one runs 1 s more

    expect((await f.must(claimNext, { queue }, bilal))?.id).toBe(lapsing.id);
    expect(await f.must(claimNext, { queue }, bilal)).toBeNull();
    expect(await taskRow(f.db, live.id)).toMatchObject({ status: "claimed", ownerId: amal.id, version: 2 });
  });

  test("start: true claims and starts in one act: one claimed event with started: true, version 2, lease from leaseSeconds", async () => {
    const queue = "claim-start";
    const task = await f.task("go", { queue });
    const taken = await f.must(claimNext, { queue, start: true, leaseSeconds: 45 }, amal);
    expect(taken).toMatchObject({ id: task.id, status: "started", version: 2 });
    expect(await taskRow(f.db, task.id)).toMatchObject({
      status: "started", ownerId: amal.id, version: 2, leaseSeconds: 45,
      leaseUntil: new Date(f.clock.time.getTime() + 45_000),
    });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed"]);
    const [, claimed] = await taskHistory(f.db, task.id);
    expect(claimed!.payload).toEqual({ version: 2, status: "started", started: true, leaseUntil: expect.any(String), leaseSeconds: 45 });
    // Completed, it is done at version 3 with two events after its created.
    await f.must(complete, { taskId: task.id, version: 2 }, amal);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "done", version: 3 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created", "claimed", "completed"]);
  });

  test("an empty queue answers null and writes nothing", async () => {
    const queue = await f.queue("nothing-here");
    expect(await f.must(claimNext, { queue }, amal)).toBeNull();
    expect(await queueEvents(f.db, queue)).toEqual([]);
  });

  test("an unknown queue is a 400 naming it, for claim-next and batch alike; no queue is made", async () => {
    const results: Result<unknown>[] = [await f.run(claimNext, { queue: "inspectoins" }, amal), await f.run(claimBatch, { queue: "inspectoins", limit: 2 }, amal)];
    for (const result of results) {
      const refused = failure(result, "invalid_request");
      expect(refused).toMatchObject({ field: "queue", message: expect.stringContaining("queue 'inspectoins' does not exist") });
    }
    expect(await f.database.client`SELECT 1 FROM queues WHERE name = 'inspectoins'`).toHaveLength(0);
  });
});

describe("the claim's statements", () => {
  /** The statements `call` sends on a connection of its own, but BEGIN, COMMIT and the events' insert. */
  async function statementsOf(call: (db: Db) => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    let counting = false;
    const counted = connectDatabase(f.database.url, { max: 1, debug: (_connection, text) => counting && seen.push(text) });
    try {
      await counted.client`SELECT 1`; // the connection's own start-up (postgres.js reads the array types) is not the call's
      counting = true;
      await call(counted.db);
    } finally {
      await counted.client.end();
    }
    return seen.filter((text) => !/^\s*(begin|commit)\b/i.test(text) && !text.includes("INSERT INTO task_events"));
  }

  test("in a plain queue claim-next is one statement, which reads the queue itself; a paused one is read first, and nothing is handed out", async () => {
    const queue = await f.queue("one-statement");
    const task = await f.task("plain", { queue });
    let claimed: unknown;
    const plain = await statementsOf(async (db) => (claimed = await f.must(claimNext, { queue, start: true }, amal, db)));
    expect(claimed).toMatchObject({ id: task.id, status: "started" });
    expect(plain).toHaveLength(1);
    expect(plain[0]).toContain("WITH gate AS MATERIALIZED");

    await f.task("waits", { queue });
    await f.must(setQueuePaused, { queue, paused: true }, bilal);
    const paused = await statementsOf(async (db) => (claimed = await f.must(claimNext, { queue }, amal, db)));
    expect(claimed).toBeNull();
    // The gate was shut, so the claim took its longer way: the queue's state, then no walk at all.
    expect(paused).toHaveLength(2);
    expect(paused[1]).toMatch(/^\s*SELECT q\.\*/);
  });
});
