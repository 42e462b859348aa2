import { afterAll, beforeAll, expect, test } from "vitest";
import type { ActorRef } from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import type { TestDatabase } from "@/test/db";
import { collect, createTasks, heartbeatBurst, lastTableCursor, percentile, tableCursors, until, type Collector, hubFixture, type HubFixture } from "@/test/realtime/helpers";
import { formatCursor } from "./cursor";
import { currentPosition } from "./feed";
import type { Hub } from "./hub";

let fixture: HubFixture;
let database: TestDatabase;
let hub: Hub;
let actor: ActorRef;
beforeAll(async () => {
  fixture = await hubFixture("Burst");
  ({ database, hub, actor } = fixture);
});
afterAll(() => fixture?.close());

test("500 subscribers of one hub each get every event of a 1,000-event burst, in order", async () => {
  const from = formatCursor(await currentPosition(database.db));
  const connectStart = performance.now();
  const subscribers: Collector[] = Array.from({ length: 500 }, () => collect(hub, from));
  expect(hub.stats.subscribers).toBe(500);
  // Each new subscriber first reads from its cursor (1,000 queries for 500); the burst is
  // measured once they are all live, as on a server whose clients are already connected.
  const [readyTask] = [...(await createTasks(database.db, actor, 1, { title: "ready" })).keys()];
  const ready = await lastTableCursor(database);
  await until(() => subscribers.every((s) => s.last() === ready), "every subscriber to be live");
  const connectMs = performance.now() - connectStart;
  const start = ready;
  const writers = await independentClients(database, 4);
  const readsBefore = hub.stats.reads;
  const commits = await Promise.all(writers.map((w) => heartbeatBurst(w.db, actor, readyTask!, "default", 250)));
  await Promise.all(writers.map((w) => w.client.end({ timeout: 5 })));
  const committedAt = new Map(commits.flatMap((m) => [...m]));
  expect(committedAt.size).toBe(1000);

  const last = await lastTableCursor(database);
  await until(() => subscribers.every((s) => s.last() === last), () => `every subscriber to reach ${last}`, 45_000);
  const table = await tableCursors(database, { after: start });
  expect(table).toHaveLength(1000);
  const latencies: number[] = [];
  for (const s of subscribers) {
    expect(s.cursors()).toEqual([ready, ...table]);
    s.events.forEach((event, i) => i > 0 && latencies.push(s.at[i]! - committedAt.get(event.eventId)!));
  }
  console.log(
    `[realtime] hub, 500 subscribers × 1,000 events: commit→delivery p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${percentile(latencies, 100).toFixed(1)} ms; ` +
      `${hub.stats.reads - readsBefore} hub reads for the burst; ${Math.round(connectMs)} ms for all 500 to subscribe and go live`,
  );
  for (const s of subscribers) s.subscriber.close();
  await until(() => hub.stats.subscribers === 0, "the subscribers to be gone");
});
