import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TaskRow } from "@/db/schema";
import { foldEvents, readTaskReadiness, setQueueSettings, type ActorRef, type FoldedTask, type Readiness } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { queueEvents } from "@/test/inspect";
import { applyStep, CLAIMING, graphStepArbitrary, type Applied, type RunContext } from "@/test/random-steps";

// The work graph under random graphs, times and transitions: no cycle is ever accepted, no
// blocked, not-yet-due or paused task is ever handed out, readiness always agrees with the
// claim that follows it, blocked_by is always the dependencies not done, and folding the
// log still reproduces every row.

let f: EngineFixture;
let actors: ActorRef[];
let supervisor: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  actors = [await f.actor("Amal"), await f.actor("agent-7", "agent"), await f.actor("Chen")];
  supervisor = await f.actor("Sara");
});
const tally: Record<string, number> = {};
afterAll(async () => {
  // What the runs reached, so a generator that stopped reaching the graph shows here.
  console.log(`[graph-property] ${JSON.stringify(tally)}`);
  await f?.close();
});

const folded = (t: FoldedTask | TaskRow) => ({
  status: t.status, ownerId: t.ownerId, version: t.version, failureCount: t.failureCount, needsCheck: t.needsCheck,
  leaseUntil: t.leaseUntil?.getTime() ?? null, dependsOn: t.dependsOn.map(String), notBefore: t.notBefore?.getTime() ?? null,
  updatedAt: t.updatedAt.getTime(),
});

const EXPECTED = [
  "already_claimed", "version_conflict", "not_owner", "lease_expired", "invalid_transition", "check_required",
  "not_ready", "dependency_cycle", "queue_paused", "forbidden",
  "unread_human_input", // a completion or an effect intent while another actor's comment on the held task is unread (docs/leases.md)
];

const rowsOf = (queue: string) =>
  f.db.query.tasks.findMany({ where: (t, { eq }) => eq(t.queue, queue), orderBy: (t, { asc }) => asc(t.id) });

/** Some task reaches itself through depends_on. */
function hasCycle(rows: TaskRow[]): boolean {
  const deps = new Map(rows.map((r) => [r.id, r.dependsOn]));
  const state = new Map<bigint, "open" | "done">();
  const visit = (id: bigint): boolean => {
    if (state.get(id) === "open") return true;
    if (state.get(id) === "done") return false;
    state.set(id, "open");
    const cyclic = (deps.get(id) ?? []).some(visit);
    state.set(id, "done");
    return cyclic;
  };
  return rows.some((r) => visit(r.id));
}

async function readinessOfAll(ctx: RunContext, actor: ActorRef): Promise<Map<string, Readiness>> {
  const out = new Map<string, Readiness>();
  for (const id of ctx.taskIds) out.set(id, (await readTaskReadiness(f.db, f.clock, id, actor))!);
  return out;
}

function checkClaim(applied: Applied, readiness: Map<string, Readiness>, now: number) {
  const { step, result, taskId } = applied;
  if (applied.before.size === 0) return; // there was no task yet: the step made one instead
  if (step.kind === "claim" && !step.stale && taskId) {
    // Readiness read just before, at the version the claim then named.
    expect(result!.ok, `claim of ${taskId}: readiness ${JSON.stringify(readiness.get(taskId))}, result ${JSON.stringify(result)}`)
      .toBe(readiness.get(taskId)!.claimable);
  }
  if (step.kind === "claimNext" && result?.ok) {
    if (taskId) expect(readiness.get(taskId)!.claimable, `claim-next handed out ${taskId}`).toBe(true);
    else expect([...readiness.values()].filter((r) => r.claimable), "claim-next found nothing").toEqual([]);
  }
  if (CLAIMING.includes(step.kind) && result?.ok && taskId && applied.before.has(taskId)) {
    const before = applied.before.get(taskId)!;
    if (before.status === "queued" && before.ownerId !== applied.actor.id) {
      expect(before.blockedBy, `claimed blocked task ${taskId}`).toEqual([]);
      expect(before.notBefore === null || before.notBefore.getTime() <= now, `claimed task ${taskId} before its notBefore`).toBe(true);
    }
  }
}

async function checkRows(ctx: RunContext, applied: Applied) {
  const outcome = `${applied.step.kind}:${applied.result ? (applied.result.ok ? "ok" : applied.result.error.code) : "-"}`;
  tally[outcome] = (tally[outcome] ?? 0) + 1;
  if (applied.result && !applied.result.ok) expect(EXPECTED, applied.result.error.message).toContain(applied.result.error.code);
  const rows = await rowsOf(ctx.queue);
  const events = await queueEvents(f.db, ctx.queue);
  const status = new Map(rows.map((r) => [r.id, r.status]));
  expect(hasCycle(rows), "a cycle was accepted").toBe(false);
  for (const row of rows) {
    // blocked_by is exactly the dependencies not done (they all live in this run's queue).
    expect(row.blockedBy.map(String)).toEqual(row.dependsOn.filter((d) => status.get(d) !== "done").map(String));
    expect(folded(foldEvents(events.filter((e) => e.taskId === row.id)))).toEqual(folded(row));
  }
  for (const e of events) if (e.type === "unblocked" || e.type === "dependency_added") tally[e.type] = (tally[e.type] ?? 0) + 1;
}

describe("the work graph, at random", () => {
  test("random graphs, times and transitions keep every rule", async () => {
    let run = 0;
    const property = fc.asyncProperty(
      fc.constantFrom(0, 30),
      fc.array(graphStepArbitrary, { minLength: 10, maxLength: 40, size: "max" }),
      async (retryDelaySeconds, steps) => {
        const ctx: RunContext = { f, queue: `graph-${++run}`, actors, supervisor, taskIds: [], graph: true };
        await f.queue(ctx.queue);
        await f.must(setQueueSettings, { queue: ctx.queue, retryDelaySeconds }, supervisor);
        let rows: TaskRow[] = [];
        for (const step of steps) {
          let readiness = new Map<string, Readiness>();
          if (CLAIMING.includes(step.kind)) {
            // The clock moves inside applyStep; read readiness at the instant the claim will see.
            f.clock.advance(step.advance);
            readiness = await readinessOfAll(ctx, actors[step.actor % actors.length]!);
            f.clock.advance(-step.advance);
          }
          const applied = await applyStep(ctx, step, rows);
          if (CLAIMING.includes(step.kind)) checkClaim(applied, readiness, f.clock.time.getTime());
          await checkRows(ctx, applied);
          rows = await rowsOf(ctx.queue);
        }
      },
    );
    await fc.assert(property, { numRuns: 25 });
  }, 180_000);
});
