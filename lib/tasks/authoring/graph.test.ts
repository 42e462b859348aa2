import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/db/client";
import {
  addDependencies, cancel, claim, claimBatch, claimNext, complete, createTask, failTask, resolve, start, type ActorRef,
} from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, eventTypes, failure, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
let amal: ActorRef;
let sara: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  amal = await f.actor("Amal");
  sara = await f.actor("Sara");
});
afterAll(async () => {
  await f?.close();
});

/** Claims, starts and completes `id` as Amal. */
async function finish(id: string) {
  const claimed = await f.must(claim, { taskId: id, version: (await taskRow(f.db, id)).version }, amal);
  const started = await f.must(start, { taskId: id, version: claimed.version }, amal);
  return f.must(complete, { taskId: id, version: started.version }, amal);
}

describe("dependencies", () => {
  test("a blocked task is never handed out; completing its last dependency unblocks it in the same transaction", async () => {
    const queue = "deps";
    const a = await f.task("a", { queue });
    const b = await f.task("b", { queue });
    const child = await f.task("child", { queue, priority: 10, dependsOn: [b.id, a.id, a.id] });
    expect(child).toMatchObject({ dependsOn: [a.id, b.id], blockedBy: [a.id, b.id] });

    // The child outranks both, but claim-next and batch claim pass it by.
    const batch = await f.must(claimBatch, { queue, limit: 10 }, await f.actor("agent-1", "agent"));
    expect(batch.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    const refused = failure(await f.run(claim, { taskId: child.id, version: 1 }, amal), "not_ready");
    expect(refused.message).toMatch(new RegExp(`Waiting for #${a.id} \\(claimed by agent-1\\)`));
    expect(refused.task?.blockedBy).toEqual([a.id, b.id]);
    expect(await eventTypes(f.db, child.id)).toEqual(["created"]);

    // One done: still blocked, and nothing written on the child (no event, same updated_at).
    const before = await taskRow(f.db, child.id);
    await f.run(claim, { taskId: a.id, version: 2 }, amal); // held by agent-1: lost
    const agent = (await f.db.query.actors.findFirst({ where: (t, { eq }) => eq(t.name, "agent-1") }))!;
    const ag: ActorRef = { id: agent.id, name: agent.name, kind: agent.kind };
    const aStarted = await f.must(start, { taskId: a.id, version: 2 }, ag);
    await f.must(complete, { taskId: a.id, version: aStarted.version }, ag);
    const mid = await taskRow(f.db, child.id);
    expect(mid.blockedBy).toEqual([BigInt(b.id)]);
    expect(mid.updatedAt).toEqual(before.updatedAt);
    expect(await f.must(claimNext, { queue }, amal)).toBeNull();

    const bStarted = await f.must(start, { taskId: b.id, version: 2 }, ag);
    f.clock.advance(1);
    await f.must(complete, { taskId: b.id, version: bStarted.version }, ag);
    const after = await taskRow(f.db, child.id);
    expect(after.blockedBy).toEqual([]);
    expect(after.version).toBe(1); // unblocking is not a transition
    const [, unblocked] = await eventsOf(f.db, child.id);
    expect(unblocked).toMatchObject({ type: "unblocked", actorId: ag.id, payload: { dependencies: [b.id], version: 1 } });
    expect(unblocked!.createdAt).toEqual(after.updatedAt);
    expect(await f.must(claimNext, { queue }, amal)).toMatchObject({ id: child.id, blockedBy: [] });
  });

  test("a dependency done before the create does not block; resolve unblocks like complete", async () => {
    const queue = "deps-done";
    const done = await f.task("done", { queue });
    await finish(done.id);
    const free = await f.task("free", { queue, dependsOn: [done.id] });
    expect(free).toMatchObject({ dependsOn: [done.id], blockedBy: [] });

    const stuck = await f.task("stuck", { queue: "deps-resolve", dependsOn: [] });
    const claimed = await f.must(claim, { taskId: stuck.id, version: 1 }, amal);
    const escalated = await f.must(failTask, { taskId: stuck.id, version: claimed.version, reason: "x" }, amal)
      .then((t) => t.status === "escalated" ? t : null);
    expect(escalated).toBeNull(); // one strike of three: requeued
    const waiting = await f.task("waiting", { queue: "deps-resolve", dependsOn: [stuck.id] });
    await f.db.execute(sql`UPDATE tasks SET status = 'escalated', version = version WHERE id = ${stuck.id}::bigint`);
    await f.must(resolve, { taskId: stuck.id, version: (await taskRow(f.db, stuck.id)).version }, sara);
    expect((await taskRow(f.db, waiting.id)).blockedBy).toEqual([]);
    expect(await eventTypes(f.db, waiting.id)).toEqual(["created", "unblocked"]);
  });

  test("bad dependencies are refused naming the field, and nothing is written", async () => {
    const counts = await rowCounts(f.db);
    const unknown = failure(await f.run(createTask, { title: "x", dependsOn: ["999999"] }, amal), "not_found");
    expect(unknown).toMatchObject({ field: "dependsOn" });
    expect(unknown.message).toMatch(/999999/);
    const many = Array.from({ length: 51 }, (_, i) => String(i + 1));
    expect(failure(await f.run(createTask, { title: "x", dependsOn: many }, amal), "invalid_request")).toMatchObject({ field: "dependsOn" });
    expect(failure(await f.run(createTask, { title: "x", dependsOn: ["abc"] }, amal), "invalid_request").field).toBe("dependsOn.0");
    expect(await rowCounts(f.db)).toEqual(counts);
  });

  test("adding dependencies later: version + 1 and an event; a cycle is refused, itself included", async () => {
    const queue = "deps-add";
    const a = await f.task("a", { queue });
    const b = await f.task("b", { queue, dependsOn: [a.id] });
    const c = await f.task("c", { queue, dependsOn: [b.id] });
    const added = await f.must(addDependencies, { taskId: a.id, version: 1, dependsOn: [] as string[] }, amal).catch((e: Error) => e);
    expect(added).toBeInstanceOf(Error); // at least one id
    const cycle = failure(await f.run(addDependencies, { taskId: a.id, version: 1, dependsOn: [c.id] }, amal), "dependency_cycle");
    expect(cycle).toMatchObject({ field: "dependsOn", task: { id: a.id } });
    failure(await f.run(addDependencies, { taskId: a.id, version: 1, dependsOn: [a.id] }, amal), "dependency_cycle");
    failure(await f.run(addDependencies, { taskId: a.id, version: 1, dependsOn: ["999999"] }, amal), "not_found");
    failure(await f.run(addDependencies, { taskId: c.id, version: 7, dependsOn: [a.id] }, amal), "version_conflict");

    const d = await f.task("d", { queue });
    const withD = await f.must(addDependencies, { taskId: c.id, version: 1, dependsOn: [d.id, a.id] }, amal);
    expect(withD).toMatchObject({ version: 2, dependsOn: [a.id, b.id, d.id], blockedBy: [a.id, b.id, d.id] });
    expect((await eventsOf(f.db, c.id)).at(-1)).toMatchObject({ type: "dependency_added", payload: { added: [a.id, d.id], version: 2 } });
    // A claimed task takes no new dependencies.
    const held = await f.must(claim, { taskId: d.id, version: 1 }, amal);
    failure(await f.run(addDependencies, { taskId: d.id, version: held.version, dependsOn: [a.id] }, amal), "invalid_transition");
  });

  test("a dependent created while its dependency completes is not left waiting for it", async () => {
    // The create locks the dependency FOR SHARE and holds its transaction open until the
    // completion waits on that lock; then it commits, and the completion goes on. The
    // completion's probe for dependents runs after its UPDATE, so it must see the new one.
    const clients = await independentClients(f.database, 2);
    try {
      const completerPid = Number((await clients[0]!.client`SELECT pg_backend_pid() AS pid`)[0]!.pid);
      for (let round = 0; round < 3; round++) {
        const dependency = await f.task(`dep${round}`, { queue: "deps-race" });
        const claimed = await f.must(claim, { taskId: dependency.id, version: 1 }, amal);
        const started = await f.must(start, { taskId: dependency.id, version: claimed.version }, amal);
        let locked!: () => void;
        const lockTaken = new Promise<void>((resolve) => (locked = resolve));
        const creating = clients[1]!.db.transaction(async (tx) => {
          const made = await createTask.run(tx, createTask.input.parse({ queue: "deps-race", title: `child${round}`, dependsOn: [dependency.id] }), { actor: sara, clock: f.clock });
          locked();
          for (;;) {
            const [row] = await f.db.execute<{ w: string | null }>(sql`SELECT wait_event_type AS w FROM pg_stat_activity WHERE pid = ${completerPid}`);
            if (row?.w === "Lock") return made;
            await new Promise((r) => setTimeout(r, 5));
          }
        });
        await lockTaken;
        const done = await f.must(complete, { taskId: dependency.id, version: started.version }, amal, clients[0]!.db);
        const made = await creating;
        if (!made.ok) throw new Error(made.error.message);
        expect(made.value.blockedBy).toEqual([dependency.id]); // it was not done when the child was made
        expect(done.status).toBe("done");
        const child = await taskRow(f.db, made.value.id);
        expect(child.blockedBy).toEqual([]);
        expect(await eventTypes(f.db, made.value.id)).toEqual(["created", "unblocked"]);
      }
    } finally {
      await Promise.all(clients.map((c) => c.client.end({ timeout: 5 })));
    }
  });

  test("two edits racing to close a cycle from both ends: exactly one is accepted", async () => {
    // y waits for z. One edit makes z wait for x, the other x wait for y: x → y → z → x.
    // Neither touches a row the other's check reads, so only the graph lock orders them.
    const clients = await independentClients(f.database, 2);
    try {
      for (let round = 0; round < 3; round++) {
        const x = await f.task(`x${round}`, { queue: "race" });
        const z = await f.task(`z${round}`, { queue: "race" });
        const y = await f.task(`y${round}`, { queue: "race", dependsOn: [z.id] });
        const results = await raceEdits(clients, [[z.id, x.id], [x.id, y.id]]);
        expect(results.map((r) => (r.ok ? "ok" : r.error.code)).sort()).toEqual(["dependency_cycle", "ok"]);
        const rows = await Promise.all([taskRow(f.db, x.id), taskRow(f.db, z.id)]);
        expect(rows.filter((r) => r.dependsOn.length > 0)).toHaveLength(1);
      }
    } finally {
      await Promise.all(clients.map((c) => c.client.end({ timeout: 5 })));
    }
  });
});

/**
 * Runs both edits on their own connections, each holding its transaction open until the other
 * edit has also done its check (or is waiting on a lock): without the graph lock, both would
 * check before either commits — the race — and both would be accepted.
 */
async function raceEdits(clients: Database[], edits: [string, string][]) {
  const pids = await Promise.all(clients.map(async (c) => Number((await c.client`SELECT pg_backend_pid() AS pid`)[0]!.pid)));
  const arrived = edits.map(() => false);
  const barrier = async (me: number) => {
    arrived[me] = true;
    const other = 1 - me;
    for (;;) {
      if (arrived[other]) return;
      const [row] = await f.db.execute<{ w: string | null }>(sql`SELECT wait_event_type AS w FROM pg_stat_activity WHERE pid = ${pids[other]}`);
      if (row?.w === "Lock") return;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return Promise.all(edits.map(([task, dependency], me) =>
    clients[me]!.db.transaction(async (tx) => {
      const result = await addDependencies.run(tx, { taskId: task, version: 1, dependsOn: [dependency] }, { actor: amal, clock: f.clock });
      await barrier(me);
      return result;
    })));
}

describe("cancelling a dependency", () => {
  test("escalates every queued task waiting for it, the reason naming it, in the same transaction", async () => {
    const queue = "deps-cancel";
    const parent = await f.task("parent", { queue });
    const kids = [await f.task("k1", { queue, dependsOn: [parent.id] }), await f.task("k2", { queue, dependsOn: [parent.id] })];
    const other = await f.task("other", { queue });
    await f.must(cancel, { taskId: parent.id, version: 1 }, sara);
    for (const kid of kids) {
      expect(await taskRow(f.db, kid.id)).toMatchObject({ status: "escalated", version: 2 });
      expect((await eventsOf(f.db, kid.id)).at(-1)).toMatchObject({
        type: "escalated", actorId: sara.id, payload: { dependency: parent.id, reason: `Its dependency #${parent.id} was cancelled` },
      });
    }
    expect((await taskRow(f.db, other.id)).status).toBe("queued");
    // And a cancelled task is no dependency to wait for.
    failure(await f.run(createTask, { title: "late", queue, dependsOn: [parent.id] }, amal), "invalid_transition");
  });
});
