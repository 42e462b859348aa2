import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, readTaskReadiness, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { reservationWaits } from "./held";

// The board's "reserved by #N (who)": the tasks a claim would take but for a held
// reservation, from the claim walk's own conflict test. Each answer is checked against
// readiness's `reserved` for every reserving task, so the board and the engine agree.

let f: EngineFixture;
let amal: ActorRef;
let dana: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal", "agent");
  dana = await f.actor("Dana");
});
afterAll(async () => {
  await f?.close();
});

const ex = (resource: string) => ({ resource, mode: "exclusive" as const });
const sh = (resource: string) => ({ resource, mode: "shared" as const });

async function agreesWithReadiness(ids: string[]) {
  const waits = new Map((await reservationWaits(f.db, f.clock)).map((w) => [w.taskId, w.holders]));
  for (const id of ids) {
    const readiness = (await readTaskReadiness(f.db, f.clock, id, dana))!;
    const reserved = readiness.reasons.filter((r) => r.code === "reserved").length;
    expect(waits.get(id)?.length ?? 0, `task ${id}`).toBe(reserved);
  }
  return waits;
}

describe("reservation waits", () => {
  test("a queued task whose reservation another holder's covers waits on it, by name; a lapse frees it", async () => {
    const q = await f.queue("waits", { leaseSeconds: 60 });
    const held = await f.task("edit pets", { queue: q, reserves: [ex("templates/tenancy/**")] });
    const blocked = await f.task("pets clause", { queue: q, reserves: [ex("templates/tenancy/pets.md")] });
    const sharedOk = await f.task("read elsewhere", { queue: q, reserves: [sh("docs/**")] });
    const plain = await f.task("nothing reserved", { queue: q });
    const ids = [held.id, blocked.id, sharedOk.id, plain.id];
    expect(await agreesWithReadiness(ids)).toEqual(new Map());

    await f.must(claim, { taskId: held.id, version: held.version }, amal);
    const waits = await agreesWithReadiness(ids);
    expect([...waits.keys()]).toEqual([blocked.id]);
    expect(waits.get(blocked.id)).toEqual([{ resource: "templates/tenancy/**", taskId: held.id, title: "edit pets", owner: "Amal" }]);

    // The holder's lease lapses: it holds nothing, so nothing waits.
    f.clock.advance(61);
    expect(await agreesWithReadiness(ids)).toEqual(new Map());
    f.clock.advance(-61);
  });

  test("a lapsed holding that another holder now blocks waits too", async () => {
    const q = await f.queue("waits-lapsed", { leaseSeconds: 30 });
    const first = await f.task("first", { queue: q, reserves: [ex("a/**")] });
    await f.must(claim, { taskId: first.id, version: first.version }, dana);
    f.clock.advance(31);
    // Dana's lease lapsed; Amal now holds a task that covers the same files.
    const second = await f.task("second", { queue: q, reserves: [ex("a/b.md")] });
    await f.must(claim, { taskId: second.id, version: second.version }, amal);
    const waits = await agreesWithReadiness([first.id, second.id]);
    expect(waits.get(first.id)).toEqual([{ resource: "a/b.md", taskId: second.id, title: "second", owner: "Amal" }]);
  });
});
