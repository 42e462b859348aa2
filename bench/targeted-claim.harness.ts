import { test } from "vitest";
import { claim, createActor, createTask, databaseClock, perform } from "@/lib/tasks";
import { freshDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { summarize } from "./lib/stats";

// The targeted claim's latency (POST /tasks/{id}/claim's engine call), one caller at a time
// so that round trips, not contention, make the figure. Compare two checkouts by running it
// on each, alternately: a latency figure of this process and server, not a bench row.
//   npx vitest run --config bench/vitest.harness.config.ts targeted-claim

const TASKS = Number(process.env.HARNESS_TASKS ?? 1500);
const REPS = Number(process.env.HARNESS_REPS ?? 5);

test("a targeted claim's latency, one caller", async () => {
  const fresh = await freshDatabase();
  // Commits without waiting for the disk: the flush would hide what a round trip costs.
  await fresh.client.unsafe(`ALTER DATABASE "${fresh.url.split("/").at(-1)!.split("?")[0]}" SET synchronous_commit = off`);
  const database = { ...fresh.connect({ max: 1 }), close: () => fresh.close() };
  try {
    const actor = await createActor(database.db, "agent", "harness");
    const creator = await createActor(database.db, "user", "creator");
    const clock = databaseClock;
    const medians: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const queue = await makeQueue(database.db, `targeted-${rep}`);
      const ids: string[] = [];
      for (let i = 0; i < TASKS; i++) {
        const made = await perform(createTask, { title: `t ${i}`, queue }, { db: database.db, actor: creator, clock });
        if (!made.ok) throw new Error(made.error.message);
        ids.push(made.value.id);
      }
      const times: number[] = [];
      for (const id of ids) {
        const started = performance.now();
        const claimed = await perform(claim, { taskId: id, version: 1 }, { db: database.db, actor, clock });
        times.push(performance.now() - started);
        if (!claimed.ok) throw new Error(claimed.error.message);
      }
      const s = summarize(times.slice(100)); // the first claims warm the connection's statements
      medians.push(s.median);
      console.log(`[targeted-claim] rep ${rep + 1}: median ${s.median.toFixed(3)} ms over ${times.length - 100} claims`);
    }
    console.log(`[targeted-claim] median of medians ${summarize(medians).median.toFixed(3)} ms`);
  } finally {
    await database.close();
  }
});
