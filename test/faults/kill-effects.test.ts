import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTask, databaseClock, setQueueSettings } from "@/lib/tasks";
import type { RunningAgent } from "@/test/cli";
import { makeQueue } from "@/test/queues";
import { rig, sleep, type Rig } from "./harness";

// Fault 9 (issue 22): reference agents that record effects (--effects) are killed with SIGKILL
// mid-effect — after an intent is recorded, before or after the simulated call reached the
// downstream, never after it was resolved on purpose — and replaced, until every task is done.
// The downstream is a file of the idempotency keys it applied (scripts/agent-effects.ts), as a
// payment provider honouring an Idempotency-Key would be. A successor finds the dead attempt's
// effect `unknown` in its claim, looks the key up downstream and says applied or failed. At the
// end: every effect is applied or failed (none intended or unknown), no key names two effects,
// the ledger says applied exactly for the keys downstream applied, and each task's call was
// applied once.

// 1,000, as the issue says. Run alone after `next build` (load average 5) 1,000 finished in
// 74 s with 37 kills; an earlier run under load 16–19 from other suites did not finish 1,000
// within the 240 s bound (docs/reliability.md). KILL_EFFECTS_TASKS=300 runs a smaller size.
const TASKS = Number(process.env.KILL_EFFECTS_TASKS ?? 1000);
const SLOTS = 6;
const WORK_MS = 40;
const LEASE_SECONDS = 10;

let r: Rig;
let dir: string;
beforeAll(async () => {
  r = await rig();
  dir = mkdtempSync(path.join(tmpdir(), "claimboard-kill-effects-"));
});
afterAll(async () => {
  await r?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const intents = (agent: RunningAgent) => agent.output().match(/^intent /gm)?.length ?? 0;

test(`fault 9: ${TASKS} tasks, agents recording effects killed with SIGKILL mid-effect: every effect applied or failed, no key twice, ledger = downstream`, { timeout: 300_000 }, async () => {
  const queue = await makeQueue(r.database.db, "kill-effects");
  await r.as(setQueueSettings, { queue, leaseSeconds: LEASE_SECONDS });
  const downstream = path.join(dir, "applied-keys.txt");
  await r.database.db.transaction(async (tx) => {
    for (let i = 0; i < TASKS; i++) {
      const made = await createTask.run(tx, createTask.input.parse({ title: `effect ${i}`, queue }), { actor: r.person, clock: databaseClock });
      if (!made.ok) throw new Error(made.error.message);
    }
  });
  const token = await r.token("effects-fleet");
  let doneSoFar = 0;
  const done = async () => {
    const [row] = await r.database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE queue = ${queue} AND status = 'done'`;
    doneSoFar = row!.n;
    return row!.n === TASKS;
  };

  const began = performance.now();
  let kills = 0;
  let finished = false;
  // Each slot runs an agent until it has recorded a random number of intents, then kills it
  // a random moment into that effect (its work is WORK_MS, the call in the middle), and starts another.
  const slots = Array.from({ length: SLOTS }, async () => {
    while (!finished) {
      const agent = r.agent(token, ["--queue", queue, "--effects", "--downstream", downstream, "--work-ms", String(WORK_MS)]);
      const target = 5 + Math.floor(Math.random() * 40);
      while (!finished && intents(agent) < target && agent.process.exitCode === null) await sleep(20);
      if (finished || agent.process.exitCode !== null) break;
      await sleep(Math.random() * WORK_MS);
      agent.process.kill("SIGKILL");
      await agent.exited;
      kills++;
    }
  });
  const deadline = performance.now() + 240_000;
  let reported = performance.now();
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`not every task was done within 240 s (${doneSoFar} of ${TASKS}; kills so far: ${kills})`);
    if (performance.now() - reported > 15_000) {
      reported = performance.now();
      console.log(`[fault 9] ${((reported - began) / 1000).toFixed(0)} s: ${doneSoFar} of ${TASKS} done, ${kills} kills`);
    }
    await sleep(250);
  }
  finished = true;
  await Promise.all(slots);
  await r.killAgents();
  const seconds = (performance.now() - began) / 1000;

  const effects = await r.database.client<{ task_id: string; idempotency_key: string; state: string; attempt: number; note: string | null }[]>`
    SELECT e.task_id::text, e.idempotency_key, e.state::text AS state, e.attempt, e.note
    FROM task_effects e JOIN tasks t ON t.id = e.task_id WHERE t.queue = ${queue}`;
  const byState = (state: string) => effects.filter((e) => e.state === state);
  expect(byState("intended").length + byState("unknown").length, "effects left intended or unknown").toBe(0);
  expect(new Set(effects.map((e) => e.idempotency_key)).size, "a key names two effects").toBe(effects.length);

  const applied = readFileSync(downstream, "utf8").split("\n").filter(Boolean);
  expect(new Set(applied).size, "downstream applied a key twice").toBe(applied.length);
  expect(byState("applied").map((e) => e.idempotency_key).sort(), "the ledger's applied effects are exactly the keys downstream applied").toEqual([...applied].sort());
  const perTask = new Map<string, number>();
  for (const e of byState("applied")) perTask.set(e.task_id, (perTask.get(e.task_id) ?? 0) + 1);
  expect(perTask.size, "every task's call applied").toBe(TASKS);
  expect([...perTask.values()].every((n) => n === 1), "a task's call applied twice").toBe(true);

  // The kills did land mid-effect: successors resolved what the dead left unknown.
  const resolvedUnknown = effects.filter((e) => e.note?.includes("downstream by its idempotency key"));
  expect(kills).toBeGreaterThan(0);
  expect(resolvedUnknown.length, "no kill left an effect unknown").toBeGreaterThan(0);
  const foundApplied = resolvedUnknown.filter((e) => e.state === "applied").length;
  console.log(
    `[fault 9] ${TASKS} tasks, ${SLOTS} agent slots, ${kills} SIGKILLs mid-effect in ${seconds.toFixed(1)} s: ${effects.length} effects, ` +
      `${resolvedUnknown.length} left unknown and resolved by the successor from the downstream (${foundApplied} applied there, ` +
      `${resolvedUnknown.length - foundApplied} not: retried under a key of the new attempt); 0 intended/unknown, 0 keys twice, ledger = downstream`,
  );
});
