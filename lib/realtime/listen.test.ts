import { afterAll, beforeAll, expect, test } from "vitest";
import type { ActorRef } from "@/lib/tasks";
import type { TestDatabase } from "@/test/db";
import { collect, createTasks, lastTableCursor, tableCursors, until, hubFixture, type HubFixture } from "@/test/realtime/helpers";
import { formatCursor } from "./cursor";
import { currentPosition } from "./feed";
import type { Hub } from "./hub";

let fixture: HubFixture;
let database: TestDatabase;
let hub: Hub;
let actor: ActorRef;
beforeAll(async () => {
  fixture = await hubFixture("Writer");
  ({ database, hub, actor } = fixture);
});
afterAll(() => fixture?.close());

/** The backend of this database's LISTEN connection (other test files have their own). */
async function listenBackend(): Promise<number | null> {
  const [row] = await database.client<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE application_name = 'claimboard-listen' AND datname = current_database()`;
  return row?.pid ?? null;
}

test("after the LISTEN backend is terminated the hub reconnects, catches up, and events keep arriving", async () => {
  const from = formatCursor(await currentPosition(database.db));
  const sub = collect(hub, from);
  await createTasks(database.db, actor, 3, { title: "before" });
  await until(() => sub.events.length === 3, "events before the termination");
  const pid = await listenBackend();
  expect(pid).not.toBeNull();
  const losses = hub.stats.listenLosses;

  const terminatedAt = performance.now();
  const [row] = await database.client<{ terminated: boolean }[]>`SELECT pg_terminate_backend(${pid}) AS terminated`;
  expect(row?.terminated).toBe(true);
  // Written while nobody listens: its NOTIFY reaches no one, so only the catch-up after the
  // reconnect can deliver it.
  await until(() => hub.stats.listenLosses > losses, "the hub to notice the lost connection", 10_000);
  const written = await createTasks(database.db, actor, 1, { title: "while down" });
  const [lostTaskId] = [...written.keys()];
  await until(() => sub.events.some((e) => e.taskId === lostTaskId), "the event written while the LISTEN connection was down");
  const arrived = sub.at[sub.events.findIndex((e) => e.taskId === lostTaskId)]!;
  console.log(`[realtime] LISTEN backend terminated → first event delivered after it: ${Math.round(arrived - terminatedAt)} ms`);

  // Live again: notifications (not just the catch-up) wake the hub.
  await until(() => hub.stats.listenConnects >= 2, "the LISTEN connection to come back", 10_000);
  const newPid = await listenBackend();
  expect(newPid).not.toBeNull();
  expect(newPid).not.toBe(pid);
  await createTasks(database.db, actor, 5, { title: "after" });
  const last = await lastTableCursor(database);
  await until(() => sub.last() === last, "events after the reconnect");
  expect(sub.cursors()).toEqual(await tableCursors(database, { after: from }));
  expect(hub.stats.listenLosses).toBeGreaterThanOrEqual(1);
  expect(hub.stats.listenConnects).toBeGreaterThanOrEqual(2);
  expect(hub.stats.lastListenLossAt).not.toBeNull();
  sub.subscriber.close();
});

test("the LISTEN connection terminated three times in a row: the hub reconnects each time and loses nothing", async () => {
  // Terminating the backend repeatedly, faster than the backoff, exercises the reconnect loop.
  const from = formatCursor(await currentPosition(database.db));
  const sub = collect(hub, from);
  const connects = hub.stats.listenConnects;
  for (let round = 0; round < 3; round++) {
    const pid = await listenBackend();
    if (pid !== null) await database.client`SELECT pg_terminate_backend(${pid})`;
    await createTasks(database.db, actor, 2, { title: `round ${round}` });
    await until(() => hub.stats.listenConnects > connects + round, `reconnect ${round + 1}`, 15_000);
  }
  const last = await lastTableCursor(database);
  await until(() => sub.last() === last, "every event of every round");
  expect(sub.cursors()).toEqual(await tableCursors(database, { after: from }));
  sub.subscriber.close();
});
