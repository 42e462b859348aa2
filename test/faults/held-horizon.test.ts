import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTask, setQueueSettings } from "@/lib/tasks";
import { openTransaction, percentile, tableCursors } from "@/test/realtime/helpers";
import { openEventStream } from "@/test/sse";
import { expectLogEqualsTable, rig, sleep, type Rig } from "./harness";
import { makeQueue } from "@/test/queues";

// Fault 5: a transaction that has taken a transaction id (it created a task through the
// engine) stays open for 30 s while agents and a writer commit around it. The stream only
// delivers below the visibility horizon (docs/realtime.md), so it pauses, then delivers
// everything, in order, none twice: a delay, never a loss.

const HOLD_MS = 30_000;

let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterAll(async () => {
  await r?.close();
});

const txOf = (cursor: string) => BigInt(cursor.slice(0, cursor.indexOf(":")));

test("fault 5: a transaction holding the visibility horizon for 30 s delays the stream but loses nothing", async () => {
  const queue = await makeQueue(r.database.db, "horizon");
  await r.as(setQueueSettings, { queue, leaseSeconds: 30 });
  const observer = await r.token("horizon-observer", "observer");
  const stream = await openEventStream(`${r.server.url}/api/v1/events?queue=${queue}`, { token: observer.token, lastEventId: "0:0" });
  const writer = r.client(await r.token("horizon-writer"));
  const before = await writer.createTask({ title: "before", queue });
  // Its own created event, not "the first message": the replay from 0:0 carries the queue's
  // settings_changed first, and the two may arrive before this wait begins.
  await stream.until(() => stream.events().some((e) => e.taskId === before.id && e.type === "created"));
  for (let i = 0; i < 2; i++) r.agent(await r.token(`horizon-agent-${i}`), ["--queue", queue, "--work-ms", "200"]);

  const held = await openTransaction(r.database);
  const heldTask = await held.run(createTask, { title: "held open", queue }, r.person);
  const [{ xid }] = (await held.tx.execute<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`)) as unknown as [{ xid: string }];
  const heldAt = performance.now();
  const deliveredBeforeHold = stream.messages.length;
  // Others commit all along: a task created every 500 ms over the API, worked by the agents.
  const committedAt = new Map<string, number>();
  let deliveredDuringHold = 0;
  try {
    while (performance.now() - heldAt < HOLD_MS) {
      const task = await writer.createTask({ title: `during ${committedAt.size}`, queue });
      committedAt.set(task.id, performance.now());
      await sleep(500);
    }
    // Nothing committed after the held transaction began went out while it was open.
    deliveredDuringHold = stream.messages.length - deliveredBeforeHold;
    expect(stream.messages.every((m) => txOf(m.id) < BigInt(xid))).toBe(true);
  } finally {
    await held.commit();
  }
  const releasedAt = performance.now();
  await r.killAgents();

  const table = await tableCursors(r.database, { queue });
  await stream.until((m) => m.length >= table.length, 60_000);
  const allInAt = Math.max(...stream.messages.map((m) => m.receivedAt));
  expect(stream.messages.map((m) => m.id)).toEqual(table);
  expect(stream.events().filter((e) => e.taskId === heldTask.id && e.type === "created")).toHaveLength(1);
  stream.close();
  await expectLogEqualsTable(r.database.db, queue);

  // The delay of each task created during the hold: its created event's arrival minus its commit.
  const arrivals = new Map(stream.events().map((e, i) => [`${e.taskId}:${e.type}`, stream.messages[i]!.receivedAt]));
  const delays = [...committedAt].map(([id, at]) => arrivals.get(`${id}:created`)! - at);
  expect(delays.every((d) => Number.isFinite(d))).toBe(true);
  console.log(
    `[fault 5] held xid ${xid} open ${Math.round(releasedAt - heldAt)} ms while ${committedAt.size} tasks were created and worked ` +
      `(${table.length} events in all): delivered meanwhile ${deliveredDuringHold}; stream delay of a commit made during the hold: ` +
      `max ${Math.round(Math.max(...delays))} ms, median ${Math.round(percentile(delays, 50))} ms; everything delivered ` +
      `${Math.round(allInAt - releasedAt)} ms after the commit; lost 0, repeated 0, out of order 0`,
  );
});
