import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TaskRow } from "@/db/schema";
import { archiveEvents } from "@/lib/events/archive";
import { ensurePartitions, monthOf } from "@/lib/events/partitions";
import {
  addComment, claim, claimNext, complete, foldEvents, recordSideEffect, setQueueSettings, start, taskHistory,
  type ActorRef, type FoldedTask,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { danglingReferences, heldSetDrift, queuedSetDrift, queueEvents, rowCounts, taskRow } from "@/test/inspect";
import {
  applyStep, CLAIMING, NEEDS_LIVE_LEASE, OWNER_ONLY, stepArbitrary, type Applied, type RunContext,
} from "@/test/random-steps";

let f: EngineFixture;
let actors: ActorRef[];
let supervisor: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  actors = [await f.actor("Amal"), await f.actor("Bilal"), await f.actor("agent-7", "agent"), await f.actor("Chen")];
  supervisor = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

/** Every field a task's events determine, timestamps as numbers so a mismatch reads plainly. */
const folded = (t: FoldedTask | TaskRow) => ({
  queue: t.queue, title: t.title, priority: t.priority, status: t.status, ownerId: t.ownerId,
  leaseUntil: t.leaseUntil?.getTime() ?? null, leaseSeconds: t.leaseSeconds, version: t.version,
  failureCount: t.failureCount, needsCheck: t.needsCheck, sideEffectRecorded: t.sideEffectRecorded,
  createdAt: t.createdAt.getTime(), updatedAt: t.updatedAt.getTime(),
  dependsOn: t.dependsOn.map(String), notBefore: t.notBefore?.getTime() ?? null, idempotencyKey: t.idempotencyKey,
  claimedAt: t.claimedAt?.getTime() ?? null, attemptLimited: t.attemptLimited,
  progress: t.progress, progressAt: t.progressAt?.getTime() ?? null,
  handoff: t.handoff, handoffAt: t.handoffAt?.getTime() ?? null,
  checkpointId: t.checkpointId?.toString() ?? null,
});

const rowsOf = (queue: string) =>
  f.db.query.tasks.findMany({ where: (t, { eq }) => eq(t.queue, queue), orderBy: (t, { asc }) => asc(t.id) });

const EXPECTED_CONFLICTS = [
  "already_claimed", "version_conflict", "not_owner", "lease_expired", "invalid_transition", "check_required", "attempt_limit",
  "forbidden", // an edit by someone who neither created nor last held the task
  "unread_human_input", // a completion while another actor's comment on the held task is unread (docs/leases.md)
];

/** Checks the run's tasks after one step; returns their rows for the next step. */
async function checkInvariants(ctx: RunContext, applied: Applied, seenVersions: Map<string, number>): Promise<TaskRow[]> {
  const now = f.clock.time.getTime();
  const rows = await rowsOf(ctx.queue);
  const events = await queueEvents(f.db, ctx.queue);
  const { step, result, actor, taskId } = applied;
  // An agent's claim of a person's lapsed task inside the queue's grace is not_ready (person_grace);
  // the runs have no graph, reservations or budgets, so no other not_ready is expected.
  const personGrace = result && !result.ok && result.error.code === "not_ready" && /personGraceSeconds/.test(result.error.message);
  if (result && !result.ok && !personGrace) expect(EXPECTED_CONFLICTS, result.error.message).toContain(result.error.code);

  for (const row of rows) {
    const id = row.id.toString();
    const held = row.status === "claimed" || row.status === "started";
    // At most one owner: a held task has exactly one owner and a lease; a free one has neither.
    if (held) expect([row.ownerId, row.leaseUntil, row.leaseSeconds]).not.toContain(null);
    if (row.status === "queued" || row.status === "escalated") {
      expect([row.ownerId, row.leaseUntil, row.leaseSeconds, row.sideEffectRecorded]).toEqual([null, null, null, false]);
    }
    if (!held) expect(row.leaseUntil).toBeNull();
    // Nothing is started while a check is owed: no automatic repeat of a side effect.
    if (row.status === "started") expect(row.needsCheck).toBe(false);
    // The version only grows.
    expect(row.version).toBeGreaterThanOrEqual(seenVersions.get(id) ?? 1);
    seenVersions.set(id, row.version);
    // Every change has its event: the history replays into the row.
    expect(folded(foldEvents(events.filter((e) => e.taskId === row.id)))).toEqual(folded(row));
  }

  if (!result?.ok || !taskId || !applied.before.has(taskId)) return rows;
  const before = applied.before.get(taskId)!;
  const after = rows.find((r) => r.id.toString() === taskId)!;
  const wrote = folded(before).updatedAt !== folded(after).updatedAt || before.version !== after.version ||
    folded(before).leaseUntil !== folded(after).leaseUntil || before.sideEffectRecorded !== after.sideEffectRecorded;
  if (!wrote) return rows; // a retry that had already taken effect: ok, and nothing written
  if (CLAIMING.includes(step.kind)) {
    // Nobody takes a task whose lease still runs.
    const free = before.status === "queued" || (before.leaseUntil !== null && before.leaseUntil.getTime() <= now);
    expect(free, `claimed task ${taskId} from ${before.status}, lease until ${before.leaseUntil?.toISOString()}`).toBe(true);
    expect(after.ownerId).toBe(actor.id);
  }
  // No automatic repeat: only an explicit, confirmed start begins a task that owes a check.
  // (A side effect of the attempt still running is its owner's own; one of a lapsed attempt is owed.)
  const ended = CLAIMING.includes(step.kind) && before.status !== "queued";
  const owedCheck = before.needsCheck || (ended && before.sideEffectRecorded);
  if (after.status === "started" && before.status !== "started") {
    expect(owedCheck ? step.kind === "start" && step.flag : true, "started a task that owes a check").toBe(true);
  }
  if (OWNER_ONLY.includes(step.kind)) expect(before.ownerId).toBe(actor.id);
  if (NEEDS_LIVE_LEASE.includes(step.kind)) expect(before.leaseUntil!.getTime()).toBeGreaterThan(now);
  return rows;
}

describe("foldEvents", () => {
  test("random transitions by four actors with random clock moves never break the invariants", async () => {
    let run = 0;
    const property = fc.asyncProperty(
      fc.constantFrom(1, 2, 3),
      // An attempt ceiling in some runs: heartbeats refused past it, and the lapses that strike.
      fc.constantFrom(null, 60, 200),
      fc.array(stepArbitrary, { minLength: 10, maxLength: 40, size: "max" }),
      async (maxFailures, maxAttemptSeconds, steps) => {
        // A queue per run keeps runs (and fast-check's shrinking re-runs) apart in one database.
        const ctx: RunContext = { f, queue: `prop-${++run}`, actors, supervisor, taskIds: [] };
        await f.queue(ctx.queue);
        await f.must(setQueueSettings, { queue: ctx.queue, maxFailures, maxAttemptSeconds }, supervisor);
        const seenVersions = new Map<string, number>();
        let rows: TaskRow[] = [];
        for (const step of steps) rows = await checkInvariants(ctx, await applyStep(ctx, step, rows), seenVersions);
      },
    );
    await fc.assert(property, { numRuns: 30 });
    // The log and the owner column have no foreign keys (migration 0017): the engine's writes
    // alone keep every reference whole, across every kind of step above.
    expect((await rowCounts(f.db)).events).toBeGreaterThan(100);
    // The announce steps wrote lapses the fold replayed as facts of no version (docs/claiming.md).
    const [lapsed] = await f.database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM task_events WHERE type = 'lapsed'`;
    expect(lapsed!.n).toBeGreaterThan(0);
    expect(await danglingReferences(f.db)).toEqual({ event_task: 0, event_queue: 0, event_actor: 0, task_owner: 0 });
    // The held and claimable sets (migrations 0028, 0029) are written by triggers, not by the engine: still exact after every kind of step.
    expect(await heldSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
    expect(await queuedSetDrift(f.db)).toEqual({ missing: 0, extra: 0, stale: 0 });
  }, 120_000); // ~5 s on an idle machine; the margin is for a loaded CI box and for shrinking a failure

  test("a claim_rejected written between the two events of one transition adds no version", async () => {
    // Losing targeted claims append without the row lock, so their ids can fall between the
    // check_confirmed and started (or failed and escalated) rows of a concurrent transition.
    const [amal, bilal] = actors as [ActorRef, ActorRef];
    const task = await f.task("interleaved", { queue: "interleave" });
    await f.must(claim, { taskId: task.id, version: 1 }, amal);
    await f.must(recordSideEffect, { taskId: task.id, version: 2, description: "sent" }, amal);
    f.clock.advance(121);
    await f.must(claimNext, { queue: "interleave" }, bilal);
    await f.run(claim, { taskId: task.id, version: 1 }, amal); // a claim_rejected to splice in
    await f.must(start, { taskId: task.id, version: 4, confirmCheck: true }, bilal);

    const history = await taskHistory(f.db, task.id);
    const types = history.map((e) => e.type);
    expect(types.slice(-3)).toEqual(["claim_rejected", "check_confirmed", "started"]);
    const [rejected, confirmed, started] = history.slice(-3);
    const interleaved = [...history.slice(0, -3), confirmed!, rejected!, started!];
    expect(folded(foldEvents(interleaved))).toEqual(folded(await taskRow(f.db, task.id)));
  });
});

describe("foldEvents on a history whose beginning was archived (events archive)", () => {
  // Its own database: the fixture above writes into DEFAULT (2026-01), which archive refuses.
  test("it replays from the events_archived fact, which holds the row as it was, then what came after", async () => {
    const g = await engineFixture();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-fold-"));
    try {
      const [amal, sara] = [await g.actor("Amal"), await g.actor("Sara")];
      const monthStart = (ago: number) => {
        const d = new Date();
        d.setUTCHours(0, 0, 0, 0);
        d.setUTCDate(1);
        d.setUTCMonth(d.getUTCMonth() - ago);
        return d;
      };
      await ensurePartitions(g.db, monthStart(2));
      g.clock.set(new Date(monthStart(2).getTime() + 86_400_000));
      const whole = await g.task("all of it archived");
      const spans = await g.task("created before, done after the cut");
      for (const task of [whole, spans]) {
        if (task === spans) g.clock.set(new Date(monthStart(1).getTime() + 86_400_000));
        await g.must(claim, { taskId: task.id, version: 1 }, amal);
        await g.must(start, { taskId: task.id, version: 2 }, amal);
        await g.must(complete, { taskId: task.id, version: 3 }, amal);
      }
      await archiveEvents(g.db, { before: monthOf(monthStart(1)), out: path.join(dir, "a.jsonl.gz"), actor: sara });
      g.clock.set(new Date());
      // A finished task takes no transition, but comments still come (an aside: no version).
      for (const task of [whole, spans]) await g.must(addComment, { taskId: task.id, body: "still findable" }, sara);

      for (const task of [whole, spans]) {
        const history = await taskHistory(g.db, task.id);
        expect(history[0]!.type, "its created event is in the file").not.toBe("created");
        expect(history.map((e) => e.type)).toContain("events_archived");
        expect(folded(foldEvents(history))).toEqual(folded(await taskRow(g.db, task.id)));
      }
      expect((await taskHistory(g.db, spans.id)).map((e) => e.type)).toEqual(["claimed", "started", "completed", "events_archived", "commented"]);
    } finally {
      await g.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
