import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sql } from "drizzle-orm";
import { claim, foldEvents, recordEffect, renew, start, taskHistory, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, taskRow } from "@/test/inspect";
import type { Result } from "@/lib/tasks/core/types";

// Leases that may demand progress (docs/leases.md): queue setting maxRenewalsWithoutProgress.

let f: EngineFixture;
let bot: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  bot = await f.actor("import-bot-2", "agent");
});
afterAll(async () => {
  await f?.close();
});

const LEASE = 60;

async function started(queue: string): Promise<Task> {
  const task = await f.task("stuck?", { queue });
  const claimed = await f.must(claim, { taskId: task.id, version: task.version }, bot);
  return f.must(start, { taskId: claimed.id, version: claimed.version }, bot);
}

/** Renews `times` times, each a little before the lease ends; the last answer. */
async function renewals(task: Task, times: number, progress?: (i: number) => string | { rows: number }) {
  let last: Result<Task> | null = null;
  for (let i = 0; i < times; i++) {
    f.clock.advance(LEASE / 2);
    const body = progress ? { progress: progress(i) } : {};
    last = await f.run(renew, { taskId: task.id, version: task.version, ...body }, bot);
    if (!last.ok) return { last, at: i + 1 };
  }
  return { last: last!, at: times };
}

describe("maxRenewalsWithoutProgress", () => {
  test("ten renewals without progress pass at a limit of 10; the eleventh is refused and the attempt fails as a strike", async () => {
    const queue = await f.queue("stalls", { leaseSeconds: LEASE, maxRenewalsWithoutProgress: 10 });
    const task = await started(queue);
    const ten = await renewals(task, 10);
    expect(ten).toMatchObject({ at: 10, last: { ok: true } });
    f.clock.advance(LEASE / 2);
    const eleventh = await f.run(renew, { taskId: task.id, version: task.version }, bot);
    const error = failure(eleventh, "no_progress");
    expect(error.message).toMatch(/no progress/);
    expect(error.task).toMatchObject({ status: "queued", owner: null, failureCount: 1, version: task.version + 1 });
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "queued", failureCount: 1, leaseUntil: null });
    const events = await eventsOf(f.db, task.id);
    expect(events.filter((e) => e.type === "heartbeat")).toHaveLength(10);
    expect(events.at(-1)).toMatchObject({ type: "failed", actorId: bot.id, payload: { reason: "no_progress", failureCount: 1 } });
    // The fold replays the refusal's failure to the row.
    const { id: _id, blockedBy: _b, ...row } = await taskRow(f.db, task.id);
    expect(foldEvents(await taskHistory(f.db, task.id))).toEqual(row);
  });

  test("the same progress again is no progress (the first report of it is)", async () => {
    const queue = await f.queue("same-progress", { leaseSeconds: LEASE, maxRenewalsWithoutProgress: 2 });
    const task = await started(queue);
    expect(await renewals(task, 3, () => "reading the file")).toMatchObject({ at: 3, last: { ok: true } });
    failure((await renewals(task, 1, () => "reading the file")).last, "no_progress");
  });

  test("an agent whose progress changes renews for ever", async () => {
    const queue = await f.queue("moving", { leaseSeconds: LEASE, maxRenewalsWithoutProgress: 3 });
    const task = await started(queue);
    const forty = await renewals(task, 40, (i) => ({ rows: i * 100 }));
    expect(forty).toMatchObject({ at: 40, last: { ok: true } });
  });

  test("the limit off (0, the default) never refuses; the counter stays 0", async () => {
    const queue = await f.queue("unbounded", { leaseSeconds: LEASE });
    const task = await started(queue);
    expect(await renewals(task, 25)).toMatchObject({ at: 25, last: { ok: true } });
    expect(await counter(task.id)).toBe(0);
  });

  test("an effect intent is progress: the count starts again", async () => {
    const queue = await f.queue("effects-count", { leaseSeconds: LEASE, maxRenewalsWithoutProgress: 3 });
    const task = await started(queue);
    expect((await renewals(task, 3)).last.ok).toBe(true);
    await f.must(recordEffect, { taskId: task.id, version: task.version, name: "send the mail" }, bot);
    expect((await renewals(task, 3)).last.ok).toBe(true);
    failure((await renewals(task, 1)).last, "no_progress");
  });

  test("a fact of progress found in the log at the limit (a checkpoint's, by type name) lets the renewal through", async () => {
    const queue = await f.queue("logged", { leaseSeconds: LEASE, maxRenewalsWithoutProgress: 2 });
    const task = await started(queue);
    expect((await renewals(task, 2)).last.ok).toBe(true);
    // A question asked and answered is in the log, though this path wrote no reset: the recount finds it.
    await f.db.execute(sql`INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
      VALUES (${task.id}::bigint, ${queue}, 'question_answered', ${bot.id}::uuid, '{}'::jsonb, now())`);
    const next = await renewals(task, 2);
    expect(next).toMatchObject({ at: 2, last: { ok: true } });
    expect(await counter(task.id)).toBe(2);
    failure((await renewals(task, 1)).last, "no_progress");
  });

  test("a third no_progress failure escalates, as any last strike", async () => {
    const queue = await f.queue("stalls-thrice", { leaseSeconds: LEASE, maxRenewalsWithoutProgress: 1 });
    const task = await f.task("thrice", { queue });
    let version = task.version;
    for (let strike = 1; strike <= 3; strike++) {
      const claimed = await f.must(claim, { taskId: task.id, version }, bot);
      await renewals(claimed, 1);
      const refused = failure((await renewals(claimed, 1)).last, "no_progress");
      expect(refused.task).toMatchObject({ failureCount: strike, status: strike === 3 ? "escalated" : "queued" });
      version = refused.task!.version;
    }
    expect((await eventsOf(f.db, task.id)).slice(-2).map((e) => e.type)).toEqual(["failed", "escalated"]);
  });
});

async function counter(id: string): Promise<number> {
  const [row] = await f.db.execute<{ n: number }>(sql`SELECT renewals_without_progress AS n FROM task_state WHERE id = ${id}::bigint`);
  return Number(row!.n);
}
