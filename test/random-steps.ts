import fc from "fast-check";
import type { TaskRow } from "@/db/schema";
import {
  addComment, addDependencies, createTask, editTask, setQueuePaused, cancel, claim, claimNext, complete, failTask, forceRelease,
  recordSideEffect, release, renew, requeue, resolve, start, sweepExpiredLeases, type ActorRef, type Result,
} from "@/lib/tasks";
import { sql } from "drizzle-orm";
import { announceLapses } from "@/lib/tasks/claiming/announce";
import { withStanding, type EngineFixture } from "./engine";

// Random sequences of engine calls for the property test: what to call, by whom, on which task.

export const STEP_KINDS = [
  "create", "claim", "claimNext", "start", "renew", "recordSideEffect", "release", "complete", "fail",
  "forceRelease", "requeue", "resolve", "cancel", "sweep", "edit", "comment", "announce",
] as const;
/** The work graph's steps (lib/tasks/authoring/graph.property.test.ts): an added dependency, a pause toggled. */
export const GRAPH_STEP_KINDS = [...STEP_KINDS, "depend", "pause"] as const;
export type StepKind = (typeof GRAPH_STEP_KINDS)[number];

export interface Step {
  kind: StepKind;
  /** Seconds the clock moves before the call. */
  advance: number;
  actor: number;
  /** Owner calls: act as the task's current owner, when it has one, instead of `actor`. */
  asOwner: boolean;
  /** Index into the run's tasks (modulo their number). */
  task: number;
  /** Pick among the tasks whose status the call accepts, when there are any. */
  fit: boolean;
  /** Pass a version off by one instead of the current one. */
  stale: boolean;
  /** start: confirmCheck; claimNext: start; create: high priority. */
  flag: boolean;
  leaseSeconds: number | undefined;
}

// Weighted towards the calls that move a task forward, so long runs reach escalation and done.
const WEIGHTS: Record<StepKind, number> = {
  create: 2, claim: 2, claimNext: 3, start: 3, renew: 2, recordSideEffect: 2, release: 1, complete: 2, fail: 2,
  forceRelease: 1, requeue: 2, resolve: 1, cancel: 1, sweep: 1, edit: 1, comment: 1, depend: 2, pause: 1, announce: 1,
};

const stepOf = (kinds: readonly StepKind[]): fc.Arbitrary<Step> => fc.record({
  kind: fc.oneof(...kinds.map((kind) => ({ arbitrary: fc.constant(kind), weight: WEIGHTS[kind] }))),
  // Mostly within a lease (120 s), sometimes far past it.
  advance: fc.oneof(
    { arbitrary: fc.constant(0), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 60 }), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 300 }), weight: 2 },
  ),
  actor: fc.nat(3),
  asOwner: fc.nat(9).map((n) => n < 7),
  task: fc.nat(7),
  fit: fc.nat(3).map((n) => n > 0),
  stale: fc.nat(5).map((n) => n === 0),
  flag: fc.boolean(),
  leaseSeconds: fc.constantFrom(undefined, 30, 120),
});

export const stepArbitrary = stepOf(STEP_KINDS);
export const graphStepArbitrary = stepOf(GRAPH_STEP_KINDS);

export interface RunContext {
  f: EngineFixture;
  queue: string;
  actors: ActorRef[];
  supervisor: ActorRef;
  taskIds: string[];
  /** Creates may take dependencies (flag) and a notBefore (stale) — the work graph's runs. */
  graph?: boolean;
}

export interface Applied {
  step: Step;
  actor: ActorRef;
  /** The task the call aimed at (for claimNext: the one it got, if any). */
  taskId: string | null;
  /** Rows of the run's tasks just before the call, by id. */
  before: Map<string, TaskRow>;
  result: Result<unknown> | null;
}

const HELD = ["claimed", "started"];
/** The statuses each task-targeted call accepts. */
const FITS: Partial<Record<StepKind, string[]>> = {
  claim: ["queued", ...HELD], start: ["claimed"], renew: HELD, recordSideEffect: HELD, release: HELD,
  complete: ["started"], fail: HELD, forceRelease: HELD, requeue: ["escalated"], resolve: ["escalated"],
  cancel: ["queued", "escalated"], depend: ["queued"], edit: ["queued", "escalated"],
};

const SUPERVISOR_CALLS = { requeue, resolve, cancel } as const;
/** A hand-off note for release and fail (and progress for renew) when the step's flag is set. */
const NOTE = { summary: "halfway", next: "finish the rest", artifacts: ["https://example.test/draft"] };

/**
 * Moves the clock and performs one step; never throws on an expected failure. `rows` are
 * the run's task rows as they are now (the previous check read them).
 */
export async function applyStep(ctx: RunContext, step: Step, rows: TaskRow[]): Promise<Applied> {
  const { f, queue } = ctx;
  f.clock.advance(step.advance);
  const before = new Map(rows.map((r) => [r.id.toString(), r]));
  const chosen = ctx.actors[step.actor % ctx.actors.length]!;
  const applied: Applied = { step, actor: chosen, taskId: null, before, result: null };

  if (step.kind === "create" || ctx.taskIds.length === 0) {
    const n = ctx.taskIds.length;
    const graph = ctx.graph && n > 0
      ? {
          dependsOn: step.flag ? [ctx.taskIds[step.task % n]!, ...(step.asOwner ? [] : [ctx.taskIds[(step.task + 3) % n]!])] : [],
          ...(step.stale ? { notBefore: new Date(f.clock.time.getTime() + (step.leaseSeconds ?? 60) * 1000).toISOString() } : {}),
        }
      : {};
    const result = await f.run(createTask, { title: `task ${n}`, queue, priority: step.flag ? 5 : 0, ...graph }, chosen);
    if (result.ok) ctx.taskIds.push(result.value.id);
    return { ...applied, taskId: result.ok ? result.value.id : null, result: ctx.graph ? result : null };
  }
  if (step.kind === "pause") {
    const [state] = await f.db.execute<{ paused: boolean }>(sql`SELECT paused FROM queues WHERE name = ${queue}`);
    const result = await f.run(setQueuePaused, { queue, paused: !state?.paused }, ctx.supervisor);
    return { ...applied, actor: ctx.supervisor, result };
  }
  if (step.kind === "sweep") {
    return { ...applied, actor: ctx.supervisor, result: await f.run(sweepExpiredLeases, { queue }, ctx.supervisor) };
  }
  if (step.kind === "announce") {
    // A server's lapse clock firing now (lib/realtime/lapse-clock.ts): `lapsed` facts, no change.
    await announceLapses(f.db, f.clock, null);
    return applied;
  }
  if (step.kind === "claimNext") {
    const result = await f.run(claimNext, { queue, start: step.flag, leaseSeconds: step.leaseSeconds }, chosen);
    return { ...applied, result, taskId: result.ok ? (result.value?.id ?? null) : null };
  }

  const fitting = ctx.taskIds.filter((id) => FITS[step.kind]?.includes(before.get(id)!.status));
  const pool = step.fit && fitting.length > 0 ? fitting : ctx.taskIds;
  const taskId = pool[step.task % pool.length]!;
  const row = before.get(taskId)!;
  const owner = ctx.actors.find((a) => a.id === row.ownerId);
  const actor = step.asOwner && owner && step.kind !== "claim" ? owner : chosen;
  const version = step.stale ? (row.version > 1 && step.flag ? row.version - 1 : row.version + 1) : row.version;
  const target = { taskId, version };
  let result: Result<unknown>;
  if (step.kind === "depend") {
    const other = ctx.taskIds[(step.task * 5 + step.advance) % ctx.taskIds.length]!;
    result = await f.run(addDependencies, { ...target, dependsOn: [other] }, actor);
  } else if (step.kind === "claim") {
    result = await f.run(claim, target, actor);
  } else if (step.kind === "start") {
    result = await f.run(start, { ...target, confirmCheck: step.flag }, actor);
  } else if (step.kind === "recordSideEffect") {
    result = await f.run(recordSideEffect, { ...target, description: "external call" }, actor);
  } else if (step.kind === "fail") {
    result = await f.run(failTask, { ...target, reason: "random failure", ...(step.flag ? { handoff: NOTE } : {}) }, actor);
  } else if (step.kind === "release") {
    result = await f.run(release, { ...target, ...(step.flag ? { handoff: NOTE } : {}) }, actor);
  } else if (step.kind === "renew") {
    result = await f.run(renew, { ...target, ...(step.flag ? { progress: { done: step.task } } : {}) }, actor);
  } else if (step.kind === "edit") {
    // flag: a supervisor edits any task; otherwise the step's actor, refused unless it created or last held it.
    const changes = { ...target, title: `edited ${step.task}`, priority: step.advance % 7, ...(step.asOwner ? { payload: { n: step.task } } : {}) };
    if (step.flag) return { ...applied, actor: ctx.supervisor, taskId, result: await f.run(withStanding(editTask, "supervisor"), changes, ctx.supervisor) };
    result = await f.run(editTask, changes, actor);
  } else if (step.kind === "comment") {
    result = await f.run(addComment, { taskId, body: `comment ${step.task}` }, actor);
  } else if (step.kind === "forceRelease") {
    return { ...applied, actor: ctx.supervisor, taskId, result: await f.run(forceRelease, target, ctx.supervisor) };
  } else if (step.kind in SUPERVISOR_CALLS) {
    const op = SUPERVISOR_CALLS[step.kind as keyof typeof SUPERVISOR_CALLS];
    return { ...applied, actor: ctx.supervisor, taskId, result: await f.run(op, target, ctx.supervisor) };
  } else {
    result = await f.run(complete, target, actor);
  }
  return { ...applied, actor, taskId, result };
}

/** Steps that change the task's owner to the caller when they succeed. */
export const CLAIMING: StepKind[] = ["claim", "claimNext"];
/** Steps only the owner may take, and only while the lease runs (they act on a live attempt). */
export const NEEDS_LIVE_LEASE: StepKind[] = ["start", "renew", "recordSideEffect"];
export const OWNER_ONLY: StepKind[] = ["start", "renew", "recordSideEffect", "release", "complete", "fail"];
