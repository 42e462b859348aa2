import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createTask, databaseClock, setQueueSettings } from "@/lib/tasks";
import type { RunningAgent } from "@/test/cli";
import { makeQueue } from "@/test/queues";
import { taskRow } from "@/test/inspect";
import { exitCode, expectLogEqualsTable, refusal, rig, sleep, type Rig } from "./harness";

// Checkpoints (docs/checkpoints.md): reference agents working in steps (--steps N) are killed
// with SIGKILL mid-step. A successor's claim carries the latest checkpoint and the agent resumes
// after its step; a stale holder's checkpoint is refused. No step is ever lost (each task's steps
// 1..N are checkpointed, in order, once) or recorded by an attempt that no longer held the task.

const STEPS = 5;
let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterEach(async () => {
  await r?.killAgents();
});
afterAll(async () => {
  await r?.close();
});

interface CheckpointRow { task_id: string; id: string; attempt: number; step: number; by_id: string }

const checkpointsOf = (queue: string) => r.database.client<CheckpointRow[]>`
  SELECT k.task_id::text, k.id::text, k.attempt, k.step, k.by_id::text FROM task_checkpoints k JOIN tasks t ON t.id = k.task_id
  WHERE t.queue = ${queue} ORDER BY k.task_id, k.id`;

/** Who claimed each attempt of each task: the nth claimed event's actor holds attempt n. */
async function claimantsOf(queue: string): Promise<Map<string, string[]>> {
  const rows = await r.database.client<{ task_id: string; actor_id: string }[]>`
    SELECT task_id::text, actor_id::text FROM task_events WHERE queue = ${queue} AND type = 'claimed' ORDER BY id`;
  const byTask = new Map<string, string[]>();
  for (const row of rows) byTask.set(row.task_id, [...(byTask.get(row.task_id) ?? []), row.actor_id]);
  return byTask;
}

describe("agents killed with SIGKILL mid-step", () => {
  test(`killed after checkpoint 3 of ${STEPS}: the successor's claim carries step 3, it resumes at 4; the dead holder's checkpoint is refused`, { timeout: 120_000 }, async () => {
    const queue = await makeQueue(r.database.db, "steps-story");
    await r.as(setQueueSettings, { queue, leaseSeconds: 5 });
    const { id } = await r.as(createTask, { title: "import five pages", queue });
    const deadToken = await r.token("dead-stepper");
    const dead = r.agent(deadToken, ["--queue", queue, "--steps", String(STEPS), "--work-ms", "10000", "--max-tasks", "1"]);
    const [, version] = (await dead.waitFor(new RegExp(`^claimed ${id} v(\\d+) `, "m")))!;
    await dead.waitFor(new RegExp(`^checkpoint 3/${STEPS} on ${id} `, "m"));
    dead.process.kill("SIGKILL");
    await dead.exited;
    expect(await taskRow(r.database.db, id)).toMatchObject({ status: "started", attempt: 1 });

    const next = r.agent(await r.token("next-stepper"), ["--queue", queue, "--steps", String(STEPS), "--work-ms", "5000", "--max-tasks", "1"]);
    await next.waitFor(new RegExp(`^resuming ${id} at step 4 of ${STEPS} \\(checkpoint 3 by dead-stepper, attempt 1\\)$`, "m"), 60_000);
    // The dead agent's token, with the version it held, after the takeover: refused, nothing written.
    const stale = await refusal(r.client(deadToken).checkpoint({ id, version: Number(version) }, 4, { done: 4 }));
    expect(stale.status, stale.message).toBe(409);
    expect(stale.code).toBe("not_owner");
    expect(await exitCode(next), next.output()).toBe(0);

    expect(next.output()).not.toMatch(/^checkpoint [123]\//m);
    const checkpoints = await r.client(deadToken).listCheckpoints(id);
    expect(checkpoints.map((c) => [c.attempt, c.step, c.by.name])).toEqual([
      [1, 1, "dead-stepper"], [1, 2, "dead-stepper"], [1, 3, "dead-stepper"], [2, 4, "next-stepper"], [2, 5, "next-stepper"],
    ]);
    expect(await r.client(deadToken).getTask(id)).toMatchObject({ status: "done", checkpoint: { step: 5, attempt: 2 } });
    await expectLogEqualsTable(r.database.db, queue);
  });

  test("a fleet killed at random moments: every step of every task checkpointed once, in order, by the attempt holding it", { timeout: 300_000 }, async () => {
    const TASKS = Number(process.env.KILL_STEPS_TASKS ?? 40);
    const SLOTS = 4;
    const WORK_MS = 500; // 100 ms a step
    const queue = await makeQueue(r.database.db, "steps-fleet");
    await r.as(setQueueSettings, { queue, leaseSeconds: 5 });
    await r.database.db.transaction(async (tx) => {
      for (let i = 0; i < TASKS; i++) {
        const made = await createTask.run(tx, createTask.input.parse({ title: `steps ${i}`, queue }), { actor: r.person, clock: databaseClock });
        if (!made.ok) throw new Error(made.error.message);
      }
    });
    const checkpointsSeen = (agent: RunningAgent) => agent.output().match(/^checkpoint /gm)?.length ?? 0;
    let finished = false;
    let kills = 0;
    // Each slot runs an agent until it has checkpointed a random number of steps, then kills it a
    // random moment into its next step (before, during or after that step's checkpoint), and starts another.
    // A token of its own for each agent, so a step's recorder is told apart from the attempt's claimant.
    let agents = 0;
    const slots = Array.from({ length: SLOTS }, async () => {
      while (!finished) {
        const agent = r.agent(await r.token(`stepper-${++agents}`), ["--queue", queue, "--steps", String(STEPS), "--work-ms", String(WORK_MS)]);
        const target = 3 + Math.floor(Math.random() * 15);
        while (!finished && checkpointsSeen(agent) < target && agent.process.exitCode === null) await sleep(20);
        if (finished || agent.process.exitCode !== null) break;
        await sleep(Math.random() * (WORK_MS / STEPS) * 1.5);
        agent.process.kill("SIGKILL");
        await agent.exited;
        kills++;
      }
    });
    const deadline = performance.now() + 240_000;
    for (;;) {
      const [row] = await r.database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE queue = ${queue} AND status = 'done'`;
      if (row!.n === TASKS) break;
      if (performance.now() > deadline) throw new Error(`not every task was done within 240 s (${row!.n} of ${TASKS}; kills: ${kills})`);
      await sleep(250);
    }
    finished = true;
    await Promise.all(slots);
    await r.killAgents();

    const checkpoints = await checkpointsOf(queue);
    const claimants = await claimantsOf(queue);
    const byTask = new Map<string, CheckpointRow[]>();
    for (const c of checkpoints) byTask.set(c.task_id, [...(byTask.get(c.task_id) ?? []), c]);
    expect(byTask.size).toBe(TASKS);
    let resumed = 0;
    for (const [taskId, rows] of byTask) {
      // None lost, none twice: the steps, in the order they were recorded, are 1..N.
      expect(rows.map((c) => c.step), `task ${taskId}`).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
      // Attempts only move on, and each step was recorded by whoever claimed that attempt.
      expect(rows.map((c) => c.attempt), `task ${taskId}`).toEqual([...rows.map((c) => c.attempt)].sort((a, b) => a - b));
      for (const c of rows) expect(c.by_id, `task ${taskId} step ${c.step}`).toBe(claimants.get(taskId)![c.attempt - 1]);
      if (new Set(rows.map((c) => c.attempt)).size > 1) resumed++;
    }
    await expectLogEqualsTable(r.database.db, queue);
    expect(kills).toBeGreaterThan(0);
    expect(resumed, "no task was resumed by a successor").toBeGreaterThan(0);
    console.log(`[kill-steps] ${TASKS} tasks of ${STEPS} steps, ${SLOTS} slots, ${kills} SIGKILLs: ${resumed} tasks resumed by a successor, every step once, in order`);
  });
});
