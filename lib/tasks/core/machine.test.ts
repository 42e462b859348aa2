import type { z } from "zod";
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from "vitest";
import { eventType, taskStatus, type EventType as SchemaEventType, type TaskStatus as SchemaTaskStatus } from "@/db/schema";
import { availableActions, type TaskAction } from "@/components/task/permissions";
import { predict } from "@/components/task/predict";
import { toWire, type TaskView, type Viewer } from "@/components/task/wire";
import {
  askQuestion, cancel, claim, complete, failTask, foldEvents, forceRelease, recordSideEffect, release, releaseReservations, renew, requeue, resolve, start,
  taskHistory, type ActorRef, type Operation, type Task,
} from "@/lib/tasks";
import type { Result } from "@/lib/tasks/core/types";
import { perform } from "@/lib/tasks/core/engine";
import type { Standing } from "./standing";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { taskRow } from "@/test/inspect";
import type { EventType } from "./event-payloads";
import { MOVES, reaches, STATUSES, type MoveRow, type TaskStatus } from "./machine";
import { EVENT_TYPES } from "./machine-events";

// The table test: every move the page offers × every situation a task can be in × three
// viewers (its owner, another person, a supervisor). The task is put there through the
// engine, the page is asked what it would offer that viewer, the move is performed through
// the engine, and the two must agree — as must the page's optimistic prediction and what
// the engine did. The matrix of what the engine accepted is also kept
// as a snapshot: a changed row of the machine shows up there, to be looked at on purpose.

describe("the machine and the database", () => {
  test("the statuses are the database enum's, in its order", () => {
    expect([...STATUSES]).toEqual(taskStatus.enumValues);
    expectTypeOf<TaskStatus>().toEqualTypeOf<SchemaTaskStatus>();
  });
  test("the event types are the database enum's, in its order", () => {
    expect(EVENT_TYPES).toEqual(eventType.enumValues);
    expectTypeOf<EventType>().toEqualTypeOf<SchemaEventType>();
  });
  test("every event a move writes is an event type", () => {
    for (const row of Object.values(MOVES)) for (const type of row.events) expect(EVENT_TYPES).toContain(type);
  });
});

let f: EngineFixture;
let owner: ActorRef;
let other: ActorRef;
let boss: ActorRef;
const LEASE = 30;
beforeAll(async () => {
  f = await engineFixture();
  owner = await f.actor("Owen");
  other = await f.actor("Olga");
  boss = await f.actor("Sue");
  await f.queue("machine", { leaseSeconds: LEASE });
  await f.queue("machine-last", { leaseSeconds: LEASE, maxFailures: 1 });
});
afterAll(async () => {
  await f?.close();
});

type Call = (actor: ActorRef, task: Task, standing: Standing) => Promise<Result<unknown>>;
const at = (task: Task) => ({ taskId: task.id, version: task.version });
const call = <S extends z.ZodType, O>(op: Operation<S, O>, input: (task: Task) => z.input<S>): Call =>
  (actor, task, standing) => perform(op, input(task), { db: f.db, actor, clock: f.clock, standing });

/** The engine operation each action of the page calls (app/actions/tasks.ts, supervise.ts). */
const ENGINE: Record<TaskAction, Call> = {
  claim: call(claim, at),
  start: call(start, at),
  renew: call(renew, at),
  sideEffect: call(recordSideEffect, (t) => ({ ...at(t), description: "sent the email" })),
  release: call(release, at),
  complete: call(complete, at),
  fail: call(failTask, (t) => ({ ...at(t), reason: "broke" })),
  forceRelease: call(forceRelease, at),
  releaseReservations: call(releaseReservations, at),
  requeue: call(requeue, at),
  resolve: call(resolve, at),
  cancel: call(cancel, at),
};

/** Situations a task can be in, each reached through the engine; Owen holds (or held) it. */
const SITUATIONS: Record<string, () => Promise<Task>> = {
  queued: () => f.task("queued", { queue: "machine" }),
  "queued, blocked": async () => f.task("blocked", { queue: "machine", dependsOn: [(await f.task("blocker", { queue: "machine" })).id] }),
  "queued, not before": () => f.task("later", { queue: "machine", notBefore: new Date(f.clock.time.getTime() + 3_600_000).toISOString() }),
  claimed: () => claimed("machine"),
  "claimed, lapsed": async () => lapse(await claimed("machine")),
  started: () => started(),
  "started, lapsed": async () => lapse(await started()),
  // Parked on a question (docs/questions.md): no page move takes it, however long the wait.
  "awaiting input, three leases on": async () => {
    const task = await started();
    const asked = await f.must(askQuestion, { ...at(task), question: "Which one?" }, owner);
    f.clock.advance(LEASE * 3);
    return asked.task;
  },
  // …but a supervisor may release what it reserves (docs/reservations.md).
  "awaiting input, reserving": async () => {
    const task = await f.task("reserving", { queue: "machine", reserves: [{ resource: `machine/${Math.random().toString(36).slice(2)}`, mode: "exclusive" }] });
    const begun = await f.must(start, at(await f.must(claim, at(task), owner)), owner);
    return (await f.must(askQuestion, { ...at(begun), question: "Which one?" }, owner)).task;
  },
  escalated: async () => {
    const task = await claimed("machine-last");
    return f.must(failTask, { ...at(task), reason: "last strike" }, owner);
  },
  done: async () => f.must(complete, at(await started()), owner),
  cancelled: async () => f.must(cancel, at(await f.task("cancelled", { queue: "machine" })), boss),
};
async function claimed(queue: string) {
  return f.must(claim, at(await f.task("claimed", { queue })), owner);
}
async function started() {
  return f.must(start, at(await claimed("machine")), owner);
}
function lapse(task: Task) {
  f.clock.advance(LEASE + 1);
  return task;
}

const VIEWERS = {
  owner: () => ({ actor: owner, viewer: { actorId: owner.id, name: owner.name, role: "staff" } as Viewer }),
  other: () => ({ actor: other, viewer: { actorId: other.id, name: other.name, role: "staff" } as Viewer }),
  supervisor: () => ({ actor: boss, viewer: { actorId: boss.id, name: boss.name, role: "supervisor" } as Viewer }),
};
type ViewerName = keyof typeof VIEWERS;

/**
 * Where the page hides a move the engine would accept, on purpose: none today. An entry
 * is `action|situation|viewer` with the reason.
 */
const HIDDEN_ON_PURPOSE: Record<string, string> = {};

describe("the page offers a move iff the engine accepts it", () => {
  test("every move × situation × viewer", async () => {
    const disagreements: string[] = [];
    const accepted: Record<string, string[]> = {};
    for (const action of Object.keys(ENGINE) as TaskAction[]) {
      const row: MoveRow = MOVES[action];
      accepted[action] = [];
      for (const [situation, make] of Object.entries(SITUATIONS)) {
        for (const name of Object.keys(VIEWERS) as ViewerName[]) {
          const { actor, viewer } = VIEWERS[name]();
          const task = await make();
          const offered = availableActions(toWire(task) as TaskView, viewer, f.clock.time.getTime()).includes(action);
          // As the surfaces call: with the viewer's standing, so the engine decides who may too.
          const result = await ENGINE[action](actor, task, viewer.role);
          const ok = result.ok;
          const key = `${action}|${situation}|${name}`;
          if (ok) accepted[action].push(`${situation} by ${name}`);
          if (offered !== ok && !(ok && !offered && HIDDEN_ON_PURPOSE[key])) {
            const said = !result.ok ? ` (${result.error.code})` : "";
            disagreements.push(`${key}: the page ${offered ? "offers" : "hides"} it, the engine ${ok ? "accepts" : "refuses"}${said}`);
          }
          if (!ok) continue;
          // Where it went is the row's, and the task's events still replay to its row.
          const after = await taskRow(f.db, task.id);
          if (!reaches(row).includes(after.status)) disagreements.push(`${key}: reached ${after.status}, not ${reaches(row).join("|")}`);
          // What the page showed at once (its optimistic prediction) is what the engine did,
          // where no rule of the server's (fail's last strike, claim's start) decided otherwise.
          const guess = predict(action, toWire(task) as TaskView, viewer);
          const ruled = row.or?.to === after.status;
          const saw = {
            ...(guess.status && !ruled ? { status: after.status } : {}),
            ...(guess.owner !== undefined ? { owner: after.ownerId } : {}),
            ...(guess.leaseUntil !== undefined ? { leaseUntil: after.leaseUntil } : {}),
            ...(guess.failureCount !== undefined ? { failureCount: after.failureCount } : {}),
            ...(guess.needsCheck !== undefined ? { needsCheck: after.needsCheck } : {}),
          };
          const said = {
            ...(guess.status && !ruled ? { status: guess.status } : {}),
            ...(guess.owner !== undefined ? { owner: guess.owner?.id ?? null } : {}),
            ...(guess.leaseUntil !== undefined ? { leaseUntil: null } : {}),
            ...(guess.failureCount !== undefined ? { failureCount: guess.failureCount } : {}),
            ...(guess.needsCheck !== undefined ? { needsCheck: guess.needsCheck } : {}),
          };
          if (JSON.stringify(saw) !== JSON.stringify(said)) disagreements.push(`${key}: predicted ${JSON.stringify(said)}, got ${JSON.stringify(saw)}`);
          const { id: _id, blockedBy: _b, ...state } = after;
          expect(foldEvents(await taskHistory(f.db, task.id)), key).toEqual(state);
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(accepted).toMatchSnapshot();
  });
});
