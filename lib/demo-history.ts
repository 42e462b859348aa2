import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { ensurePartitions } from "@/lib/events/partitions";
import { forgetRollups } from "@/lib/insights/rollup";
import { claimNext, complete, createActor, createQueue, createTask, failTask, ManualClock, perform, renew, resetBreaker, setQueueSettings, getQueue } from "@/lib/tasks";
import type { ActorRef, Result, Task } from "@/lib/tasks/model";

function must<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`demo history: ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/**
 * Three hours of a queue's life, written through the engine on a clock that starts three
 * hours ago: two agents and a person claim-and-start, heartbeat every 5–25 s and complete;
 * every seventh owner goes silent past the 30 s lease and the other agent reclaims; a few
 * fail (one twice, escalated). Deterministic (a fixed-seed generator), so the pictures are.
 * The demo's first start writes it (so /insights has something to show), and so does the
 * insights e2e test.
 */
export async function seedHistory(db: Db, people: { amal: ActorRef; sara: ActorRef }, queue: string, botPrefix = "etl-bot"): Promise<void> {
  const [row] = await db.execute<{ now: string }>(sql`SELECT now() AS now`);
  const end = new Date(row!.now).getTime() - 60_000;
  const clock = new ManualClock(new Date(end - 3 * 3_600_000));
  // Three hours back may be last month, which a fresh database has no partition for (only
  // this month and next): without one, those rows would sit in DEFAULT and never be archived.
  await ensurePartitions(db, clock.time);
  let seed = 7;
  const rand = (low: number, high: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return low + (seed % (high - low + 1));
  };
  const as = <T>(actor: ActorRef, op: Parameters<typeof perform>[0], input: unknown) =>
    perform(op, input, { db, actor, clock }).then((r) => must(r) as T);
  const bots = [await createActor(db, "agent", `${botPrefix}-1`), await createActor(db, "agent", `${botPrefix}-2`)];
  // The queue is made here, on purpose, unless the caller (a test) already made it.
  if (!(await getQueue(db, queue))) await as(people.sara, createQueue, { name: queue, description: "Invoice batches synced by two bots and a person" });
  await as(people.sara, setQueueSettings, { queue, leaseSeconds: 30, maxFailures: 2, personGraceSeconds: 60 });

  // A live server beside this (the e2e's) announces these backdated leases as lapsed now, on
  // the real clock; to the reclaim's breaker that reads as the clock moving backwards, and it
  // trips. The history's supervisor closes it again, as on the inbox, and the reclaim goes on.
  const reclaimAfterReset = async (agent: ActorRef) => {
    await as(people.sara, resetBreaker, { queue });
    const again = await as<Task | null>(agent, claimNext, { queue, start: true });
    if (!again) throw new Error("demo history: the lapsed lease was not reclaimed");
    return again;
  };
  for (let k = 0; clock.time.getTime() < end - 600_000; k++) {
    clock.advance(rand(5, 30));
    await as(people.sara, createTask, { title: `Sync invoice batch ${k + 1}`, queue });
    clock.advance(rand(20, 120));
    const worker = k % 5 === 4 ? people.amal : bots[k % 2]!;
    let task = await as<Task | null>(worker, claimNext, { queue, start: true });
    if (!task) continue;
    for (let beats = rand(2, 5); beats > 0; beats--) {
      clock.advance(rand(5, 25));
      task = await as<Task>(worker, renew, { taskId: task.id, version: task.version });
    }
    if (k % 7 === 3) {
      // Silent past the lease (and a person's grace, in which no agent may take their task): the other agent reclaims.
      clock.advance(worker.kind === "user" ? 95 : 45);
      const other = bots[(k + 1) % 2]!;
      const again = (await as<Task | null>(other, claimNext, { queue, start: true })) ?? (await reclaimAfterReset(other));
      clock.advance(rand(3, 15));
      await as(other, complete, { taskId: again.id, version: again.version });
    } else if (k % 11 === 5 || k % 11 === 6) {
      clock.advance(rand(3, 10));
      await as(worker, failTask, { taskId: task.id, version: task.version, reason: "Upstream answered 503" });
    } else {
      clock.advance(rand(3, 15));
      await as(worker, complete, { taskId: task.id, version: task.version });
    }
    clock.advance(rand(10, 60));
  }
  // Backdated: an /insights reader may have rolled up some of these hours while they were written.
  await forgetRollups(db, queue);
}
