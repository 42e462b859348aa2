import { afterAll, beforeAll, expect, test } from "vitest";
import { sql } from "drizzle-orm";
import { claimNext, complete, createTask, perform, type ActorRef } from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { conflict, type Reservation } from "../core/reservation";

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => {
  await f?.close();
});

const TASKS = 500;
const CLAIMERS = 32;

/** Chains: task i holds c/<i mod 40> alone and shares c/<i+1 mod 40>; every 25th takes all of c/**. */
function reservesOf(i: number): Reservation[] {
  if (i % 25 === 24) return [{ resource: "c/**", mode: "exclusive" }];
  return [{ resource: `c/${i % 40}`, mode: "exclusive" }, { resource: `c/${(i + 1) % 40}`, mode: "shared" }];
}

test(`${CLAIMERS} claimers over ${TASKS} tasks whose reservations overlap in chains never hold two conflicting tasks at once, and finish them all`, async () => {
  const queue = await f.queue("res-race", { leaseSeconds: 3600 });
  const creator = await f.actor("creator");
  const reserves = new Map<string, Reservation[]>();
  for (let i = 0; i < TASKS; i++) {
    const r = await perform(createTask, { title: `job ${i}`, queue, reserves: reservesOf(i) }, { db: f.db, actor: creator, clock: f.clock });
    if (!r.ok) throw new Error(r.error.message);
    reserves.set(r.value.id, reservesOf(i));
  }
  const clients = await independentClients(f.database, CLAIMERS);
  const actors: ActorRef[] = [];
  for (let i = 0; i < CLAIMERS; i++) actors.push(await f.actor(`agent-${i}`, "agent"));
  let done = 0;
  // Every claimer takes its first task before anyone completes one, so holdings overlap by
  // construction, not by how the machine happens to schedule 32 connections.
  let arrived = 0;
  let firstHeld = 0;
  let allClaimed!: () => void;
  const firstRound = new Promise<void>((resolve) => (allClaimed = resolve));
  await Promise.all(clients.map(async (client, i) => {
    const ctx = { db: client.db, actor: actors[i]!, clock: f.clock };
    let first = true;
    while (done < TASKS) {
      const next = await perform(claimNext, { queue, start: true }, ctx);
      if (!next.ok) throw new Error(next.error.message);
      if (first) {
        first = false;
        if (next.value) firstHeld++;
        if (++arrived === CLAIMERS) allClaimed();
        await firstRound;
      }
      if (!next.value) {
        await new Promise((r) => setTimeout(r, 2)); // all that is left conflicts with what is held now
        continue;
      }
      const finished = await perform(complete, { taskId: next.value.id, version: next.value.version }, ctx);
      if (!finished.ok) throw new Error(finished.error.message);
      done++;
    }
  }));

  // From the log: each task's holding runs from its claimed event to its completed event.
  const rows = await f.db.execute<{ task_id: string; type: string; id: string }>(sql`
    SELECT e.task_id::text, e.type, e.id::text FROM task_events e WHERE e.queue = ${queue} AND e.type IN ('claimed', 'completed') ORDER BY e.id`);
  const spans = new Map<string, { from: bigint; to: bigint }>();
  for (const e of rows) {
    if (e.type === "claimed") spans.set(e.task_id, { from: BigInt(e.id), to: BigInt(Number.MAX_SAFE_INTEGER) });
    else spans.get(e.task_id)!.to = BigInt(e.id);
  }
  expect(spans.size).toBe(TASKS);
  expect(rows.filter((e) => e.type === "completed")).toHaveLength(TASKS);
  const ids = [...spans.keys()];
  let overlapping = 0;
  let conflictingPairs = 0;
  for (let a = 0; a < ids.length; a++) {
    for (let b = a + 1; b < ids.length; b++) {
      const [x, y] = [spans.get(ids[a]!)!, spans.get(ids[b]!)!];
      const clash = reserves.get(ids[a]!)!.some((r) => reserves.get(ids[b]!)!.some((s) => conflict(r, s)));
      if (clash) conflictingPairs++;
      if (x.from < y.to && y.from < x.to) {
        overlapping++;
        expect(clash, `tasks ${ids[a]} and ${ids[b]} were held at once with conflicting reservations`).toBe(false);
      }
    }
  }
  // The first round is claim-next's greedy walk in claim order (one claim at a time under the
  // lock): every task that conflicts with none taken before it, up to one per claimer.
  const taken: Reservation[][] = [];
  for (let i = 0; i < TASKS && taken.length < CLAIMERS; i++) {
    if (!taken.some((held) => held.some((r) => reservesOf(i).some((s) => conflict(r, s))))) taken.push(reservesOf(i));
  }
  expect(firstHeld).toBe(taken.length);
  // The test means something: many pairs conflict, and the claimers did work side by side.
  expect(conflictingPairs).toBeGreaterThan(10_000);
  expect(overlapping).toBeGreaterThan(100);
  for (const c of clients) await c.client.end();
}, 180_000);
