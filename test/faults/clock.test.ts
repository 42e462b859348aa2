import path from "node:path";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { taskEvents } from "@/db/schema";
import { createTask, ManualClock, perform, resetBreaker, setQueueSettings } from "@/lib/tasks";
import { queueEvents, taskRow } from "@/test/inspect";
import { exitCode, rig, waitFor, type Rig } from "./harness";
import { makeQueue } from "@/test/queues";

// Fault 6: clocks. The server and the agents run with their wall clock an hour off (a
// preload that shifts Date; the database keeps the true time): nothing changes, because all
// lease maths use the database clock. The database clock seen moving backwards (an event
// recorded while it read an hour later) trips the breaker and stops automatic reclaiming.

const HOUR = 3_600_000;
const preload = path.resolve("test/faults/clock-offset.mjs");
const shifted = (ms: number) => ({ NODE_OPTIONS: `--import ${preload}`, FAULT_CLOCK_OFFSET_MS: String(ms) });

let r: Rig;
beforeAll(async () => {
  r = await rig(shifted(+HOUR)); // the application host is an hour ahead
});
afterEach(async () => {
  await r?.killAgents();
});
afterAll(async () => {
  await r?.close();
});

const dbNow = async () => Number((await r.database.client`SELECT (extract(epoch FROM now()) * 1000)::bigint::text AS ms`)[0]!.ms);
const lapsed = (id: string) => async () =>
  (await r.database.client`SELECT lease_until <= now() AS lapsed FROM tasks WHERE id = ${id}`)[0]!.lapsed === true;
const events = (id: string) => r.database.db.select().from(taskEvents).where(eq(taskEvents.taskId, BigInt(id))).orderBy(asc(taskEvents.id));

describe("fault 6: clocks", () => {
  test("the server +1 h and agents ±1 h: leases, heartbeats and reclaims run on the database clock as if nothing were wrong", async () => {
    expect(r.server.output()).toMatch(/\[clock\] pid \d+: Date reads \+3600000 ms off/);
    const queue = await makeQueue(r.database.db, "clock-shift");
    await r.as(setQueueSettings, { queue, leaseSeconds: 5 });

    // An agent an hour behind works past its 5 s lease on heartbeats and completes.
    const { id: worked } = await r.as(createTask, { title: "long work, slow clock", queue });
    const behind = r.agent(await r.token("behind"), ["--queue", queue, "--work-ms", "9000", "--max-tasks", "1"], shifted(-HOUR));
    expect(await behind.exited, behind.output()).toBe(0);
    expect(behind.output()).toMatch(/\[clock\] pid \d+: Date reads -3600000 ms off/);
    const workedEvents = await events(worked);
    const heartbeats = workedEvents.filter((e) => e.type === "heartbeat").length;
    expect(workedEvents.map((e) => e.type).filter((t) => t !== "heartbeat")).toEqual(["created", "claimed", "completed"]); // claimed with started: true
    expect(heartbeats).toBeGreaterThan(0);

    // An agent an hour ahead claims and dies; one an hour behind reclaims after the 5 s lease, not an hour later or earlier.
    const { id: crashed } = await r.as(createTask, { title: "crash, fast clock", queue });
    const ahead = r.agent(await r.token("ahead"), ["--queue", queue, "--work-ms", "600000"], shifted(+HOUR));
    await ahead.waitFor(new RegExp(`^claimed ${crashed} `, "m"));
    ahead.process.kill("SIGKILL");
    await ahead.exited;
    const rescuer = r.agent(await r.token("rescuer"), ["--queue", queue, "--work-ms", "100", "--max-tasks", "1"], shifted(-HOUR));
    expect(await exitCode(rescuer), rescuer.output()).toBe(0); // an hour-long lease would fail here
    expect((await taskRow(r.database.db, crashed)).status).toBe("done");

    const history = await events(crashed);
    const claimed = history.find((e) => e.type === "claimed")!;
    const expired = history.find((e) => e.type === "lease_expired")!;
    const expiredAt = expired.createdAt.getTime();
    // The dead agent's lease as it last stood: its claim and any heartbeat before the expiry.
    const leaseUntil = Math.max(...history.filter((e) => e.id < expired.id && (e.type === "claimed" || e.type === "heartbeat"))
      .map((e) => Date.parse((e.payload as { leaseUntil: string }).leaseUntil)));
    expect(Date.parse((claimed.payload as { leaseUntil: string }).leaseUntil) - claimed.createdAt.getTime()).toBe(5000);
    expect(expiredAt).toBeGreaterThanOrEqual(leaseUntil);
    // Every timestamp the shifted server wrote is the database's, not an hour off.
    const now = await dbNow();
    for (const e of [...workedEvents, ...history]) expect(Math.abs(now - e.createdAt.getTime())).toBeLessThan(HOUR / 2);
    console.log(
      `[fault 6] server +1 h, agents -1 h and +1 h: lease granted ${Date.parse((claimed.payload as { leaseUntil: string }).leaseUntil) - claimed.createdAt.getTime()} ms ` +
        `(asked 5000); 9 s of work on a 5 s lease kept by ${heartbeats} heartbeats, 0 expiries; a killed agent's task reclaimed ` +
        `${expiredAt - leaseUntil} ms after its lease ended (database clock)`,
    );
  });

  test("the database clock seen moving backwards trips the breaker (clock_backwards): no automatic reclaim until a reset", async () => {
    const queue = await makeQueue(r.database.db, "clock-back");
    await r.as(setQueueSettings, { queue, leaseSeconds: 5 });
    const { id: lapsing } = await r.as(createTask, { title: "held by an agent that dies", queue });
    const dying = r.agent(await r.token("dying"), ["--queue", queue, "--work-ms", "600000"]);
    await dying.waitFor(new RegExp(`^claimed ${lapsing} `, "m"));
    dying.process.kill("SIGKILL");
    await dying.exited;

    // A transition the database recorded while its clock read an hour later than it does now.
    const future = new ManualClock(new Date((await dbNow()) + HOUR));
    const created = await perform(createTask, { title: "written an hour ahead", queue }, { db: r.database.db, actor: r.person, clock: future });
    if (!created.ok) throw new Error(created.error.message);
    await waitFor(lapsed(lapsing), "the dead agent's lease to lapse");

    // The next claim sees the clock behind the log: it trips the breaker, reclaims nothing, and fresh work still flows.
    const first = r.agent(await r.token("first"), ["--queue", queue, "--work-ms", "100", "--once"]);
    expect(await first.exited, first.output()).toBe(0);
    expect(first.output()).toMatch(new RegExp(`^completed ${created.value.id} `, "m"));
    expect(await queueEvents(r.database.db, queue, "breaker_tripped")).toMatchObject([{ payload: { cause: "clock_backwards" } }]);
    const second = r.agent(await r.token("second"), ["--queue", queue, "--once"]);
    expect(await second.exited, second.output()).toBe(0);
    expect(second.output()).toMatch(/^nothing to claim$/m);
    expect(await taskRow(r.database.db, lapsing)).toMatchObject({ status: "started" });
    expect(await queueEvents(r.database.db, queue, "lease_expired")).toEqual([]);

    // A supervisor's reset: the readings before it no longer count, and the lapsed task is reclaimed.
    const reset = await perform(resetBreaker, { queue }, { db: r.database.db, actor: r.person });
    expect(reset.ok).toBe(true);
    const third = r.agent(await r.token("third"), ["--queue", queue, "--work-ms", "100", "--once"]);
    expect(await third.exited, third.output()).toBe(0);
    expect(third.output()).toMatch(new RegExp(`^completed ${lapsing} `, "m"));
    expect(await r.database.db.select().from(taskEvents)
      .where(and(eq(taskEvents.queue, queue), eq(taskEvents.type, "lease_expired")))).toHaveLength(1);
    console.log(
      `[fault 6] database clock 1 h behind the log: breaker tripped (clock_backwards) by the first claim after a lease lapsed; ` +
        `lapsed tasks reclaimed while tripped: 0 (fresh work still done: 1); after a supervisor reset: reclaimed 1`,
    );
  });
});
