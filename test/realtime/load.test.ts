import { afterAll, beforeAll, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { createActor, type ActorRef } from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { startServer, type TestServer } from "@/test/server";
import { openEventStream, type SseClient } from "@/test/sse";
import { createAndClaim, createTasks, heartbeatBurst, lastTableCursor, percentile, tableCursors, until } from "./helpers";

// Many writers, many readers, one `next start` process: the stream must still be the table.

let database: TestDatabase;
let server: TestServer;
let token: string;
let actor: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  server = await startServer(database.url);
  token = (await createAgentToken(database.db, { name: "watcher", role: "observer" })).token;
  actor = await createActor(database.db, "user", "Writer");
});
afterAll(async () => {
  await server?.stop();
  await database?.close();
});

const open = (lastEventId: string) => openEventStream(`${server.url}/api/v1/events`, { token, lastEventId });

test("8 writers on independent connections at once: the stream is the table, each event once, in (tx_id, id) order", async () => {
  const from = await lastTableCursor(database);
  const client = await open(from);
  const writers = await independentClients(database, 8);
  try {
    // The clients are connected already, so Promise.all starts all 8 together.
    await Promise.all(writers.map((w, i) => createAndClaim(w.db, actor, 40, `q${i % 3}`)));
  } finally {
    await Promise.all(writers.map((w) => w.client.end({ timeout: 5 })));
  }
  const table = await tableCursors(database, { after: from });
  expect(table).toHaveLength(8 * 40 * 2);
  await until(() => client.lastEventId() === table.at(-1), () => `the stream to reach ${table.at(-1)} (has ${client.messages.length})`);
  const ids = client.messages.map((m) => m.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(table);
  client.close();
});

test("50 SSE connections to one server each receive every event of a 1,000-event burst", async () => {
  const clients: SseClient[] = await Promise.all(Array.from({ length: 50 }, async () => open(await lastTableCursor(database))));
  // Measured once every connection is live (its replay done), as on a server whose clients are connected.
  const [readyTask] = [...(await createTasks(database.db, actor, 1, { title: "ready" })).keys()];
  const ready = await lastTableCursor(database);
  await until(() => clients.every((c) => c.lastEventId() === ready), "every connection to be live");

  const writers = await independentClients(database, 4);
  let commits: Map<string, number>[];
  try {
    commits = await Promise.all(writers.map((w) => heartbeatBurst(w.db, actor, readyTask!, "default", 250)));
  } finally {
    await Promise.all(writers.map((w) => w.client.end({ timeout: 5 })));
  }
  const committedAt = new Map(commits.flatMap((m) => [...m]));
  const table = await tableCursors(database, { after: ready });
  expect(table).toHaveLength(1000);
  await until(() => clients.every((c) => c.lastEventId() === table.at(-1)), () => `all 50 to reach ${table.at(-1)}`, 45_000);

  const latencies: number[] = [];
  for (const client of clients) {
    const burst = client.messages.slice(client.messages.findIndex((m) => m.id === ready) + 1);
    expect(burst.map((m) => m.id)).toEqual(table);
    for (const message of burst) {
      const { eventId } = JSON.parse(message.data) as { eventId: string };
      latencies.push(message.receivedAt - committedAt.get(eventId)!);
    }
  }
  console.log(
    `[realtime] HTTP, 50 SSE connections × 1,000 events: commit→delivery p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${percentile(latencies, 100).toFixed(1)} ms`,
  );
  for (const client of clients) client.close();
});
