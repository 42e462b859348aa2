import { afterAll, beforeAll, expect, test } from "vitest";
import type { TaskEventRow } from "@/db/schema";
import { claimText, groupByAttempt } from "@/components/task/attempts";
import type { EventView } from "@/components/task/wire";
import { EVENTS, isEventType } from "@/lib/tasks/core/machine-events";
import { claimNext, complete, foldEvents, taskHistory, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { taskRow } from "@/test/inspect";

// One act, one event (docs/contract.md): a claim with start: true writes one `claimed` event with
// `started: true`. Histories written before hold the pair `claimed`, `started` (one version
// each, same transaction); the fold and the timeline read both forms, also in one history.

let f: EngineFixture;
let amal: ActorRef;
let bot: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  bot = await f.actor("bot-1", "agent");
});
afterAll(async () => {
  await f?.close();
});

/**
 * The history as the code before wrote it: the first `claimed` with `started: true` becomes
 * the pair (claimed at its version, started one later), every later version one higher.
 */
function writtenBefore(history: TaskEventRow[]): TaskEventRow[] {
  const at = history.findIndex((e) => e.type === "claimed" && (e.payload as { started?: boolean }).started);
  const shifted = (e: TaskEventRow): TaskEventRow => {
    const p = e.payload as { version?: number };
    return typeof p.version === "number" ? { ...e, payload: { ...p, version: p.version + 1 } } : e;
  };
  const { started: _started, ...claimed } = history[at]!.payload as Record<string, unknown>;
  return [
    ...history.slice(0, at),
    { ...history[at]!, payload: { ...claimed, status: "claimed" } },
    { ...history[at]!, id: history[at]!.id + 1_000_000n, type: "started", payload: { version: (claimed.version as number) + 1, status: "started" } },
    ...history.slice(at + 1).map(shifted),
  ];
}

/** The timeline's lines, attempt by attempt (components/task/attempts.ts, as timeline.tsx reads them). */
function timelineLines(history: TaskEventRow[]): string[][] {
  const views = history.map((e) => ({
    id: String(e.id), taskId: String(e.taskId), queue: e.queue, type: e.type, payload: e.payload,
    actor: { id: e.actorId, name: "", kind: "user" }, createdAt: e.createdAt.toISOString(),
  }) as EventView);
  return groupByAttempt(views).map((attempt) => attempt.entries.map((entry) =>
    entry.type === "claimed" ? claimText(entry) : isEventType(entry.type) ? EVENTS[entry.type].label : entry.type));
}

test("a history holding both forms (a pair written before, then one event) replays through the fold and the timeline", async () => {
  const task = await f.task("both forms", { queue: "forms" });
  await f.must(claimNext, { queue: "forms", start: true, leaseSeconds: 30 }, amal);
  f.clock.advance(31 + 300); // past the lease and a person's grace (personGraceSeconds' default)
  const taken = await f.must(claimNext, { queue: "forms", start: true }, bot);
  expect(taken).toMatchObject({ id: task.id, status: "started", version: 4 }); // claimed+started 2, lapsed 3, taken over and started 4
  await f.must(complete, { taskId: task.id, version: 4 }, bot);

  const row = await taskRow(f.db, task.id);
  const history = await taskHistory(f.db, task.id);
  expect(history.map((e) => [e.type, (e.payload as { started?: true }).started])).toEqual([
    ["created", undefined], ["claimed", true], ["lease_expired", undefined], ["claimed", true], ["completed", undefined],
  ]);
  expect(row).toMatchObject({ status: "done", version: 5 });
  const { id: _id, blockedBy: _blockedBy, ...state } = row;
  expect(foldEvents(history)).toEqual(state);

  // The first attempt as written before: a pair, one version more; the second as now.
  const mixed = writtenBefore(history);
  expect(mixed.map((e) => e.type)).toEqual(["created", "claimed", "started", "lease_expired", "claimed", "completed"]);
  expect(foldEvents(mixed)).toEqual({ ...state, version: state.version + 1 });
  // Both attempts written before.
  expect(foldEvents(writtenBefore(mixed))).toEqual({ ...state, version: state.version + 2 });
  // Cut after the claim, while the attempt runs: started, by either form.
  const live = history.slice(0, 2);
  expect(foldEvents(live)).toMatchObject({ status: "started", version: 2, ownerId: amal.id });
  expect(foldEvents(writtenBefore(live))).toMatchObject({ status: "started", version: 3, ownerId: amal.id });

  expect(timelineLines(mixed)).toEqual([
    ["created the task"],
    ["claimed it", "started work", "noted the lease had lapsed; back to the queue"],
    ["took it over (the previous lease had lapsed) and started it", "completed it"],
  ]);
  expect(timelineLines(history)[1]).toEqual(["claimed and started it", "noted the lease had lapsed; back to the queue"]);
});
