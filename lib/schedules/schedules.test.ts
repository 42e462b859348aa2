import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, perform, start, updateQueue, type ActorRef } from "@/lib/tasks";
import { SYSTEM_ACTOR_ID } from "@/lib/tasks/core/events";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { createSchedule, deleteSchedule, listSchedules, updateSchedule, type CreateScheduleInput } from "./ops";
import { occurrenceKey, runDueSchedules } from "./tick";

// Recurring work with the injected clock (moved, never waited): ticks of several "instances"
// (pools) at once make one task per occurrence; overlap and missed as the contract says; the
// calendar (DST) is cron-parser's, checked at Europe/Berlin's spring change.

let f: EngineFixture;
let sara: ActorRef;
let amal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  sara = await f.actor("Sara");
  amal = await f.actor("Amal", "agent");
});
afterAll(async () => {
  await f?.close();
});

const make = (input: Partial<CreateScheduleInput> & { queue: string }) =>
  f.must(createSchedule, { name: `every minute ${input.queue}`, cron: "* * * * *", task: { title: `report for ${input.queue}` }, ...input } as CreateScheduleInput, sara);
const tick = (db = f.db) => runDueSchedules(db, { clock: f.clock });
const tasksOf = (queue: string) => f.db.execute<{ id: string; payload: { _schedule: { id: string; occurrence: string; backfilled?: boolean; missed?: number } }; idempotency_key: string; status: string }>(
  sql`SELECT t.id::text AS id, t.payload, t.idempotency_key, t.status FROM tasks t WHERE t.queue = ${queue} ORDER BY t.id`);
const skips = (queue: string) => f.db.execute<{ payload: { reason: string; previousTaskId?: string; missed?: number } }>(
  sql`SELECT payload FROM task_events WHERE queue = ${queue} AND type = 'schedule_skipped' ORDER BY id`);

describe("creating", () => {
  test.each([
    [{ cron: "*/5 * * * * *" }, "cron", /5 fields/],
    [{ cron: "61 * * * *" }, "cron", /not a cron expression/],
    [{ timezone: "Mars/Olympus" }, "timezone", /not an IANA time zone/],
    [{ queue: "nowhere" }, "queue", /no queue is named nowhere/],
    [{ task: { title: "" } }, "task.title", /empty/],
  ])("%o is refused naming %s, nothing written", async (bad, field, message) => {
    await f.queue("refusals");
    const result = await f.run(createSchedule, { name: "bad", cron: "0 9 * * 1", queue: "refusals", task: { title: "t" }, ...bad } as CreateScheduleInput, sara);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect([result.error.code, result.error.field]).toEqual(["invalid_request", field]);
    expect(result.error.message).toMatch(message);
    expect((await listSchedules(f.db)).find((s) => s.name === "bad")).toBeUndefined();
  });

  test("a name is one schedule's; staff may not make one", async () => {
    await f.queue("named");
    await make({ queue: "named", name: "weekly digest" });
    const again = await f.run(createSchedule, { name: "weekly digest", cron: "0 9 * * 1", queue: "named", task: { title: "t" } }, sara);
    expect(!again.ok && [again.error.code, again.error.field]).toEqual(["invalid_request", "name"]);
    const staff = await perform(createSchedule, { name: "x", cron: "0 9 * * 1", queue: "named", task: { title: "t" } }, { db: f.db, actor: amal, standing: "staff", clock: f.clock });
    expect(!staff.ok && staff.error.code).toBe("forbidden");
  });
});

describe("ticking", () => {
  test("three instances ticking through 10 minutes of * * * * * make exactly 10 tasks", async () => {
    f.clock.set(new Date("2026-02-01T10:00:30Z"));
    await f.queue("minutely");
    const schedule = await make({ queue: "minutely", overlap: "allow" });
    expect(schedule.nextAt).toEqual(new Date("2026-02-01T10:01:00Z"));
    const pools = [f.database.connect({ max: 1 }).db, f.database.connect({ max: 1 }).db, f.database.connect({ max: 1 }).db];
    for (let minute = 1; minute <= 10; minute++) {
      f.clock.advance(60);
      await Promise.all(pools.flatMap((db) => [tick(db), tick(db)]));
    }
    const tasks = await tasksOf("minutely");
    expect(tasks).toHaveLength(10);
    expect(tasks.map((t) => t.payload._schedule.occurrence)).toEqual(
      Array.from({ length: 10 }, (_, i) => new Date(Date.UTC(2026, 1, 1, 10, 1 + i)).toISOString()));
    // Keys are scoped by their creator (lib/tasks/authoring/create.ts): the system actor's, here.
    expect(tasks.map((t) => t.idempotency_key)).toEqual(tasks.map((t) => `${SYSTEM_ACTOR_ID}:${occurrenceKey(schedule.id, new Date(t.payload._schedule.occurrence))}`));
    expect(tasks.every((t) => t.payload._schedule.id === schedule.id && !t.payload._schedule.backfilled)).toBe(true);
  });

  test("overlap skip: no task while the previous one is held, a schedule_skipped fact instead", async () => {
    f.clock.set(new Date("2026-02-02T10:00:30Z"));
    await f.queue("no-overlap");
    await make({ queue: "no-overlap" });
    f.clock.advance(60);
    await tick();
    const [first] = await tasksOf("no-overlap");
    await f.must(claim, { taskId: first!.id, version: 1 }, amal);
    f.clock.advance(60);
    await tick();
    expect(await tasksOf("no-overlap")).toHaveLength(1);
    expect((await skips("no-overlap")).map((e) => e.payload)).toEqual([expect.objectContaining({ reason: "overlap", previousTaskId: first!.id })]);
    await f.must(start, { taskId: first!.id, version: 2 }, amal);
    await f.must(complete, { taskId: first!.id, version: 3 }, amal);
    f.clock.advance(60);
    await tick();
    expect(await tasksOf("no-overlap")).toHaveLength(2);
    const [listed] = (await listSchedules(f.db)).filter((s) => s.queue === "no-overlap");
    expect(listed!.lastResult).toMatchObject({ kind: "created" });
  });

  test("a 5-minute outage: missed once makes one backfilled task; missed skip makes none and says so", async () => {
    f.clock.set(new Date("2026-02-03T10:00:30Z"));
    await f.queue("outage-once");
    await f.queue("outage-skip");
    await make({ queue: "outage-once", overlap: "allow", missed: "once" });
    await make({ queue: "outage-skip", overlap: "allow", missed: "skip" });
    f.clock.advance(60);
    await tick();
    f.clock.advance(5 * 60 + 10); // 10:06:40: 10:02 … 10:06 passed with no tick
    await tick();
    const once = await tasksOf("outage-once");
    expect(once.map((t) => [t.payload._schedule.occurrence.slice(11, 16), t.payload._schedule.backfilled ?? false, t.payload._schedule.missed])).toEqual([
      ["10:01", false, undefined], ["10:05", true, 4], ["10:06", false, undefined],
    ]);
    const skip = await tasksOf("outage-skip");
    expect(skip.map((t) => t.payload._schedule.occurrence.slice(11, 16))).toEqual(["10:01", "10:06"]);
    expect((await skips("outage-skip")).map((e) => e.payload)).toEqual([expect.objectContaining({ reason: "missed", missed: 4 })]);
  });

  test("Europe/Berlin's spring change: 03:00 local is 02:00 UTC before it and 01:00 UTC after", async () => {
    f.clock.set(new Date("2026-03-26T12:00:00Z"));
    await f.queue("berlin");
    await make({ queue: "berlin", name: "berlin at three", cron: "0 3 * * *", timezone: "Europe/Berlin", overlap: "allow" });
    const expected = ["2026-03-27T02:00:00.000Z", "2026-03-28T02:00:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T01:00:00.000Z"];
    for (const at of expected) {
      f.clock.set(new Date(new Date(at).getTime() - 30_000));
      await tick(); // 30 s early: nothing
      f.clock.set(new Date(new Date(at).getTime() + 30_000));
      await tick();
    }
    expect((await tasksOf("berlin")).map((t) => t.payload._schedule.occurrence)).toEqual(expected);
  });

  test("paused, it makes nothing; resumed, it counts from then; deleted, nothing more", async () => {
    f.clock.set(new Date("2026-02-04T10:00:30Z"));
    await f.queue("pausing");
    const s = await make({ queue: "pausing", overlap: "allow" });
    await f.must(updateSchedule, { id: s.id, paused: true }, sara);
    f.clock.advance(600);
    await tick();
    expect(await tasksOf("pausing")).toHaveLength(0);
    const resumed = await f.must(updateSchedule, { id: s.id, paused: false }, sara);
    expect(resumed.nextAt).toEqual(new Date("2026-02-04T10:11:00Z"));
    f.clock.advance(60);
    await tick();
    expect(await tasksOf("pausing")).toHaveLength(1);
    await f.must(deleteSchedule, { id: s.id }, sara);
    f.clock.advance(600);
    await tick();
    expect(await tasksOf("pausing")).toHaveLength(1);
  });

  test("a schedule that cannot make its task says why and holds no other back", async () => {
    f.clock.set(new Date("2026-02-05T10:00:30Z"));
    await f.queue("doomed");
    await f.queue("fine");
    const doomed = await make({ queue: "doomed", overlap: "allow" });
    await make({ queue: "fine", overlap: "allow" });
    await f.must(updateQueue, { queue: "doomed", archived: true }, sara);
    f.clock.advance(60);
    await tick();
    expect(await tasksOf("fine")).toHaveLength(1);
    const [listed] = (await listSchedules(f.db)).filter((x) => x.id === doomed.id);
    expect(listed!.lastResult).toMatchObject({ kind: "failed", reason: expect.stringMatching(/archived/) });
    expect(listed!.nextAt).toEqual(new Date("2026-02-05T10:02:00Z"));
  });
});
