import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connectDatabase, type Database } from "@/db/client";
import { claimBatch, claimNext, complete, createActor, createTask, perform, sweepExpiredLeases, type ActorRef } from "@/lib/tasks";
import { foldEvents } from "@/lib/tasks/reads/fold";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { eventsOf, queueEvents, taskRow } from "@/test/inspect";
import { makeQueue } from "@/test/queues";
import { openTransaction } from "@/test/realtime/helpers";
import { Hub } from "./hub";
import { LapseClock } from "./lapse-clock";

// The lapse clock (docs/realtime.md "Lapses, announced") on a real PostgreSQL with real leases
// of 5 s (the shortest a queue allows): two "instances", each its own pool, hub (LISTEN) and
// clock, as two server processes run them. Nobody claims the lapsed tasks and nobody sweeps:
// the announcement comes from the clocks alone, once per attempt, and changes nothing.

interface Instance { database: Database; hub: Hub; clock: LapseClock }

let database: TestDatabase;
let instances: Instance[] = [];
let author: ActorRef;
let agent: ActorRef;

async function instance(): Promise<Instance> {
  const own = connectDatabase(database.url, { max: 2 });
  const hub = new Hub({ db: () => own.db, url: database.url });
  await hub.start();
  const clock = new LapseClock({ db: () => own.db, batch: 50 });
  hub.tap((events) => clock.heard(events));
  hub.onHeldBack(() => clock.heldBack());
  clock.start();
  return { database: own, hub, clock };
}

beforeAll(async () => {
  database = await freshDatabase();
  author = await createActor(database.db, "user", "Author");
  agent = await createActor(database.db, "agent", "agent-7");
  instances = [await instance(), await instance()];
});
afterAll(async () => {
  for (const i of instances) {
    await i.clock.stop();
    await i.hub.stop();
    await i.database.client.end();
  }
  await database?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const run = <T>(op: Parameters<typeof perform>[0], input: unknown, actor: ActorRef) =>
  perform(op as never, input as never, { db: database.db, actor }) as Promise<{ ok: boolean; value: T; error?: { code: string } }>;

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await sleep(50);
  }
}

const lapsedOf = (queue: string) => queueEvents(database.db, queue, "lapsed");

test("a lapse nobody takes is announced once, within a second of the lease's end; the late owner still completes", async () => {
  const queue = await makeQueue(database.db, "quiet", { leaseSeconds: 5 });
  const made = await run<{ id: string }>(createTask, { title: "stranded", queue }, author);
  const claimed = await run<{ id: string; version: number; leaseUntil: Date }>(claimNext, { queue, start: true }, agent);
  expect(claimed.ok).toBe(true);
  const leaseUntil = new Date(claimed.value.leaseUntil);
  const before = await taskRow(database.db, made.value.id);

  const lapsed = await waitFor(() => lapsedOf(queue), (rows) => rows.length > 0, 9_000);
  expect(lapsed).toHaveLength(1);
  expect(lapsed[0]!.createdAt.getTime() - leaseUntil.getTime()).toBeGreaterThanOrEqual(0);
  expect(lapsed[0]!.createdAt.getTime() - leaseUntil.getTime()).toBeLessThan(1_000);
  expect(lapsed[0]).toMatchObject({
    taskId: BigInt(made.value.id), actorId: "00000000-0000-0000-0000-000000000000",
    payload: { attempt: 1, leaseUntil: leaseUntil.toISOString(), owner: { id: agent.id, name: "agent-7", kind: "agent" }, version: claimed.value.version, status: "started" },
  });
  // No state change: the row is as the claim left it (version, status, updated_at), the lease in place.
  expect(await taskRow(database.db, made.value.id)).toEqual(before);
  // However many clocks fire meanwhile, and whatever they hear, still one.
  await sleep(1_500);
  expect(await lapsedOf(queue)).toHaveLength(1);

  // Seed 000's branch: nobody reclaimed, so the owner who finishes late still may.
  const done = await run<{ status: string }>(complete, { taskId: made.value.id, version: claimed.value.version, result: "late" }, agent);
  expect(done.ok, JSON.stringify(done.error)).toBe(true);
  expect(done.value.status).toBe("done");
  // The fold replays `lapsed` as a fact of no version.
  const { id: _id, blockedBy: _blocked, ...row } = await taskRow(database.db, made.value.id);
  expect(foldEvents(await eventsOf(database.db, made.value.id))).toEqual(row);
}, 30_000);

test("a takeover's attempt lapses again: one announcement per attempt, never two for one", async () => {
  const queue = await makeQueue(database.db, "twice", { leaseSeconds: 5 });
  const made = await run<{ id: string }>(createTask, { title: "dropped twice", queue }, author);
  await run(claimNext, { queue }, agent);
  await waitFor(() => lapsedOf(queue), (rows) => rows.length > 0, 9_000);
  const other = await createActor(database.db, "agent", "agent-8");
  const taken = await run<{ attempt: number }>(claimNext, { queue }, other);
  expect(taken.ok).toBe(true);
  const lapsed = await waitFor(() => lapsedOf(queue), (rows) => rows.length > 1, 9_000);
  expect(lapsed.map((e) => [e.payload, e.taskId])).toMatchObject([
    [{ attempt: 1, owner: { name: "agent-7" } }, BigInt(made.value.id)],
    [{ attempt: 2, owner: { name: "agent-8" } }, BigInt(made.value.id)],
  ]);
  // The takeover wrote what it writes today: the lapse of attempt 1 as lease_expired, then the claim.
  const types = (await eventsOf(database.db, made.value.id)).map((e) => e.type);
  expect(types).toEqual(["created", "claimed", "lapsed", "lease_expired", "claimed", "lapsed"]);
  // And the sweep still turns an announced lapse back to the queue, as it did before.
  const swept = await run<{ expired: number }>(sweepExpiredLeases, { queue }, author);
  expect(swept.value.expired).toBe(1);
  expect(await taskRow(database.db, made.value.id)).toMatchObject({ status: "queued", ownerId: null, version: 5 });
  expect((await eventsOf(database.db, made.value.id)).map((e) => e.type).at(-1)).toBe("lease_expired");
}, 30_000);

test("an expiry storm: 300 leases ending together are announced once each, in a few bounded firings", async () => {
  const queue = await makeQueue(database.db, "storm", { leaseSeconds: 5 });
  for (let i = 0; i < 300; i++) await run(createTask, { title: `storm ${i}`, queue }, author);
  const statsBefore = instances.map((i) => ({ ...i.clock.stats }));
  // Three batch claims: each batch's 100 leases end at the same microsecond (one transaction's now()).
  for (let i = 0; i < 3; i++) expect((await run(claimBatch, { queue, limit: 100 }, agent)).ok).toBe(true);

  const lapsed = await waitFor(() => lapsedOf(queue), (rows) => rows.length >= 300, 15_000);
  await sleep(1_000);
  const all = await lapsedOf(queue);
  expect(all).toHaveLength(300);
  expect(new Set(all.map((e) => e.taskId)).size).toBe(300);
  expect(lapsed.length).toBe(300);
  const work = instances.map((i, n) => ({
    firings: i.clock.stats.firings - statsBefore[n]!.firings,
    probes: i.clock.stats.probes - statsBefore[n]!.probes,
    announced: i.clock.stats.announced - statsBefore[n]!.announced,
    // Reads while an open transaction elsewhere in the cluster held the hub's feed back (≤ 1 a second).
    heldBack: i.clock.stats.heldBack - statsBefore[n]!.heldBack,
  }));
  expect(work[0]!.announced + work[1]!.announced).toBe(300);
  // Bounded: batches of 50 (this test's), so about 300 / 50 firings over the two clocks with a
  // probe after each settled one — never a firing per held task or per heard claim.
  for (const w of work) {
    expect(w.firings).toBeLessThanOrEqual(12 + w.heldBack);
    expect(w.probes).toBeLessThanOrEqual(6 + w.heldBack);
  }
  // Nothing moved: every task is still claimed, at the version its claim left.
  const [row] = await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM tasks WHERE queue = ${queue} AND status = 'claimed' AND version = 2`);
  expect(row!.n).toBe(300);
}, 60_000);

test("while leases run, a claim ending after the armed timer costs the clock no read; one ending before re-arms it without one", async () => {
  const queue = await makeQueue(database.db, "steady", { leaseSeconds: 30 });
  for (let i = 0; i < 6; i++) await run(createTask, { title: `steady ${i}`, queue }, author);
  await run(claimNext, { queue, leaseSeconds: 20 }, agent);
  await waitFor(async () => instances.map((i) => i.clock.armed), (now) => now.every((at) => at !== null), 10_000);
  await sleep(300);
  const armed = instances.map((i) => i.clock.armed);
  const before = instances.map((i) => ({ ...i.clock.stats }));
  // Reads made only because an open transaction elsewhere in the cluster held the hub's feed
  // back (heldBack: the claims cannot be heard then) are the only ones allowed.
  const heardOnly = (n: number) => {
    const now = instances[n]!.clock.stats;
    const held = now.heldBack - before[n]!.heldBack;
    expect(now.firings - before[n]!.firings).toBeLessThanOrEqual(held);
    expect(now.announced).toBe(before[n]!.announced);
    return held === 0;
  };
  for (let i = 0; i < 4; i++) await run(claimNext, { queue }, agent);
  await sleep(500);
  instances.forEach((i, n) => {
    if (heardOnly(n)) expect(i.clock.armed).toBe(armed[n]);
  });
  // A claim whose lease ends before the timer moves it earlier, still without a read, and its
  // lapse is announced at its own end, not the earlier-armed one's.
  const short = await run<{ id: string; leaseUntil: Date }>(claimNext, { queue, leaseSeconds: 5 }, agent);
  expect(short.value?.id, "a sixth task to claim").toBeDefined();
  await waitFor(async () => instances.map((i) => i.clock.armed), (now) => now.every((at, n) => at !== armed[n]), 4_500); // under the 5 s lease: a loaded machine's hub may be slow to hear the claim
  instances.forEach((i, n) => {
    heardOnly(n);
    expect(i.clock.armed!).toBeLessThan(armed[n]!);
  });
  const lapsed = await waitFor(() => lapsedOf(queue), (rows) => rows.length > 0, 9_000);
  expect(lapsed.map((e) => e.taskId)).toEqual([BigInt(short.value.id)]);
  expect(lapsed[0]!.createdAt.getTime() - new Date(short.value.leaseUntil).getTime()).toBeLessThan(1_000);
}, 30_000);

test("while an open transaction holds the hub's feed back, a lapse is still announced on time", async () => {
  const queue = await makeQueue(database.db, "held-back", { leaseSeconds: 5 });
  const heldBefore = instances.map((i) => i.clock.stats.heldBack);
  // An open transaction with an id holds the visibility horizon: the hubs can read no event
  // committed after it (docs/realtime.md "Delay, not loss"), so no clock hears the claim.
  const open = await openTransaction(database);
  try {
    await open.tx.execute(sql`SELECT pg_current_xact_id()`);
    await run(createTask, { title: "claimed behind a long transaction", queue }, author);
    const claimed = await run<{ leaseUntil: Date }>(claimNext, { queue }, agent);
    const lapsed = await waitFor(() => lapsedOf(queue), (rows) => rows.length > 0, 9_000);
    expect(lapsed).toHaveLength(1);
    expect(lapsed[0]!.createdAt.getTime() - new Date(claimed.value.leaseUntil).getTime()).toBeLessThan(1_500);
    expect(instances.some((i, n) => i.clock.stats.heldBack > heldBefore[n]!)).toBe(true);
  } finally {
    await open.rollback();
  }
}, 30_000);

test("a stopped clock (SIGTERM) keeps no timer and fires no more, whatever it hears", async () => {
  const own = connectDatabase(database.url, { max: 1 });
  const clock = new LapseClock({ db: () => own.db });
  clock.start();
  await waitFor(async () => clock.stats.probes, (n) => n > 0, 10_000);
  await clock.stop();
  const stats = { ...clock.stats };
  clock.heard([{ type: "claimed", leaseUntil: new Date(Date.now() + 100).toISOString() }, { type: "claimed" }]);
  await sleep(400);
  expect(clock.armed).toBeNull();
  expect(clock.stats).toEqual(stats);
  await own.client.end();
}, 30_000);
