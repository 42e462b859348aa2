import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { z } from "zod";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createAgentToken, type CreatedToken } from "@/lib/auth/tokens";
import { addComment, answerQuestion, claimNext, createActor, createTask, forceRelease, perform, raiseBudget, recordCheckpoint, recordEffect, recordSideEffect, release, setQueueSettings, type ActorRef, type Operation } from "@/lib/tasks";
import { loadTask } from "@/lib/tasks/core/task-row";
import { startAgent, type RunningAgent } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { startServer, type TestServer } from "@/test/server";

// The reference agent as a process against the real server: it works a queue dry; a
// SIGKILLed agent's task is taken over by another once the lease lapses; SIGINT gives the
// task back before exiting; a heartbeat that finds the task gone stops the work; and
// needs_check tasks are only taken with --confirm-checks; without it the agent asks the server to skip them.

let database: TestDatabase;
let server: TestServer;
let creator: ActorRef;
const running: RunningAgent[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  creator = await createActor(database.db, "user", "test");
  server = await startServer(database.url);
});
afterEach(async () => {
  for (const agent of running.splice(0)) {
    if (agent.process.exitCode === null && agent.process.signalCode === null) agent.process.kill("SIGKILL");
    await agent.exited;
  }
});
afterAll(async () => {
  await server?.stop();
  await database?.close();
});

/** An engine call as the test's own actor, unwrapped. */
async function as<S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>): Promise<O> {
  const result = await perform(op, input, { db: database.db, actor: creator });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** A task in `queue`, made first when new (queues exist only on purpose). */
const newTask = async (queue: string, title: string) => (await as(createTask, { title, queue: await makeQueue(database.db, queue) })).id;

function agent(token: CreatedToken, args: string[]): RunningAgent {
  const started = startAgent(["--url", server.url, ...args], { CLAIMBOARD_TOKEN: token.token });
  running.push(started);
  return started;
}

async function task(id: string) {
  const [row] = await database.client`
    SELECT t.status, a.name AS owner FROM tasks t LEFT JOIN actors a ON a.id = t.owner_id WHERE t.id = ${id}`;
  return row!;
}

async function history(id: string): Promise<string[]> {
  const rows = await database.client`
    SELECT e.type, a.name FROM task_events e JOIN actors a ON a.id = e.actor_id WHERE e.task_id = ${id} ORDER BY e.id`;
  return rows.map((r) => `${r.type} ${r.name}`);
}

describe("the reference agent", () => {
  test("completes every task of its queue, then stops at --max-tasks", async () => {
    const token = await createAgentToken(database.db, { name: "worker" });
    const ids = [await newTask("work", "a"), await newTask("work", "b"), await newTask("work", "c")];
    const worker = agent(token, ["--queue", "work", "--work-ms", "100", "--max-tasks", "3"]);
    expect(await worker.exited, worker.output()).toBe(0);

    for (const id of ids) {
      expect((await task(id)).status).toBe("done");
      expect(worker.output()).toMatch(new RegExp(`^claimed ${id} v\\d+ \\(started\\)$`, "m"));
      expect(worker.output()).toMatch(new RegExp(`^completed ${id} v\\d+$`, "m"));
    }
    expect(await history(ids[0]!)).toEqual(["created test", "claimed worker", "completed worker"]);
  });

  test("says 'submitted for review' when its completion went to a reviewer, on both completion paths", async () => {
    const token = await createAgentToken(database.db, { name: "reviewed" });
    const ids = [await newTask("agent-reviewed", "a"), await newTask("agent-reviewed", "b")];
    await as(setQueueSettings, { queue: "agent-reviewed", review: "agents" });
    const worker = agent(token, ["--queue", "agent-reviewed", "--work-ms", "50", "--max-tasks", "2"]);
    expect(await worker.exited, worker.output()).toBe(0);
    for (const id of ids) {
      expect((await task(id)).status).toBe("in_review");
      expect(worker.output()).toMatch(new RegExp(`^submitted for review ${id} v\\d+$`, "m"));
    }
    expect(worker.output()).not.toMatch(/^completed /m);
  });

  test("reads input before done: prints a person's comment on the task it works and acknowledges it before completing", async () => {
    const token = await createAgentToken(database.db, { name: "reader" });
    const id = await newTask("agent-input", "refund 1042");
    const worker = agent(token, ["--queue", "agent-input", "--work-ms", "1500", "--max-tasks", "1"]);
    await worker.waitFor(new RegExp(`^claimed ${id} `, "m"));
    await as(addComment, { taskId: id, body: "Credit, not refund" });
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(new RegExp(`^comment on ${id} from test \\(event \\d+\\): Credit, not refund$`, "m"));
    expect(worker.output()).toMatch(new RegExp(`^acknowledged 1 comment on ${id}$`, "m"));
    expect((await task(id)).status).toBe("done");
    expect((await history(id)).slice(-2)).toEqual(["acknowledged reader", "completed reader"]);
  });

  test("completes each task and claims the next in the same request: one transaction per task after the first", async () => {
    const token = await createAgentToken(database.db, { name: "looper" });
    const ids = [await newTask("loop", "a"), await newTask("loop", "b"), await newTask("loop", "c")];
    const worker = agent(token, ["--queue", "loop", "--work-ms", "50", "--max-tasks", "3"]);
    expect(await worker.exited, worker.output()).toBe(0);
    // b's claim rode in a's completion, c's in b's: the same transaction id on both tasks' events.
    const tx = async (id: string, type: string) =>
      (await database.client`SELECT tx_id::text FROM task_events WHERE task_id = ${id} AND type = ${type}`)[0]!.tx_id as string;
    expect(await tx(ids[1]!, "claimed")).toBe(await tx(ids[0]!, "completed"));
    expect(await tx(ids[2]!, "claimed")).toBe(await tx(ids[1]!, "completed"));
    // The last completion claims nothing more: --max-tasks is reached.
    expect(await tx(ids[2]!, "completed")).not.toBe(await tx(ids[2]!, "claimed"));
    for (const id of ids) expect((await task(id)).status).toBe("done");
  });

  test("idle, it waits in the server (--wait), one request at a time and no backoff, and claims a task the moment it is created", async () => {
    const token = await createAgentToken(database.db, { name: "idler" });
    await makeQueue(database.db, "idle");
    const worker = agent(token, ["--queue", "idle", "--wait", "2", "--work-ms", "50", "--max-tasks", "1"]);
    await worker.waitFor(/^nothing to claim in idle; waiting for work \(2s at a time\)$/m);
    // Past two waits: a polling agent would now be sleeping a 4 s backoff.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const id = await newTask("idle", "wake me");
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(new RegExp(`^completed ${id} `, "m"));
    // One line for the whole idle stretch, and no backoff: it never slept between requests.
    expect(worker.output().match(/waiting for work/g)).toHaveLength(1);
    expect(worker.output()).not.toMatch(/next try in/);
    // Claimed within a moment of its creation, on the database's clock (not at the next poll).
    const [gap] = await database.client<{ ms: number }[]>`
      SELECT extract(epoch FROM (c.created_at - m.created_at)) * 1000 AS ms FROM task_events c JOIN task_events m ON m.task_id = c.task_id AND m.type = 'created'
      WHERE c.task_id = ${id}::bigint AND c.type = 'claimed'`;
    expect(Number(gap!.ms)).toBeLessThan(2_000);
  });

  test("--batch N: claims N in one call, works them together, completes them in one call", async () => {
    const token = await createAgentToken(database.db, { name: "batcher" });
    const ids = await Promise.all(["a", "b", "c", "d", "e"].map((title) => newTask("batch", title)));
    const worker = agent(token, ["--queue", "batch", "--work-ms", "50", "--batch", "3", "--max-tasks", "5"]);
    expect(await worker.exited, worker.output()).toBe(0);
    const rows = await database.client`
      SELECT task_id::text, type, tx_id::text FROM task_events WHERE task_id IN ${database.client(ids)} AND type IN ('claimed', 'completed')`;
    const txs = (type: string) => new Set(rows.filter((r) => r.type === type).map((r) => r.tx_id));
    expect(txs("claimed").size).toBe(2); // 3, then 2
    expect(txs("completed").size).toBe(2);
    for (const id of ids) expect((await task(id)).status).toBe("done");
    expect(worker.output()).toMatch(/batches of 3/);
  });

  test("a server it cannot reach: it says which URL, and keeps trying", async () => {
    const token = await createAgentToken(database.db, { name: "lost" });
    const lost = startAgent(["--queue", "nowhere"], { CLAIMBOARD_TOKEN: token.token, CLAIMBOARD_URL: "", PORT: "1" });
    running.push(lost);
    await lost.waitFor(/^cannot reach the server at http:\/\/localhost:1 \(.*\); next try in/m);
  });

  test("--once against a server it cannot reach ends: one line, exit 1 (a cron job must not hang)", async () => {
    const token = await createAgentToken(database.db, { name: "lost-once" });
    const once = startAgent(["--queue", "nowhere", "--once"], { CLAIMBOARD_TOKEN: token.token, CLAIMBOARD_URL: "", PORT: "1" });
    running.push(once);
    expect(await once.exited).toBe(1);
    expect(once.output()).toMatch(/^error: cannot reach the server at http:\/\/localhost:1 \(/m);
  });

  test("options that would be ignored are refused: --downstream without --effects, an empty --ask", async () => {
    const token = await createAgentToken(database.db, { name: "strict" });
    for (const [args, message] of [
      [["--downstream", "/tmp/never-written"], /--downstream works with --effects/],
      [["--ask", " "], /--ask must be a question of 1 to 2000 characters/],
      [["--steps", "3", "--batch", "2"], /--steps works one task at a time without --effects/],
      [["--steps", "201"], /--steps must be a whole number from 1 to 200/],
    ] as const) {
      const refused = startAgent(["--once", ...args], { CLAIMBOARD_TOKEN: token.token });
      running.push(refused);
      expect(await refused.exited).toBe(2);
      expect(refused.output()).toMatch(message);
    }
  });

  test("killed with SIGKILL after a claim: the lease lapses and a second agent takes the task over", async () => {
    await makeQueue(database.db, "crash");
    await as(setQueueSettings, { queue: "crash", leaseSeconds: 5 }); // what `npm run cli -- queue set` does
    const id = await newTask("crash", "survive a crash");
    const first = agent(await createAgentToken(database.db, { name: "first" }), ["--queue", "crash", "--work-ms", "60000"]);
    await first.waitFor(new RegExp(`^claimed ${id} `, "m"));
    first.process.kill("SIGKILL");
    await first.exited;
    expect(await task(id)).toEqual({ status: "started", owner: "first" });

    const second = agent(await createAgentToken(database.db, { name: "second" }), ["--queue", "crash", "--work-ms", "200", "--max-tasks", "1"]);
    expect(await second.exited, second.output()).toBe(0);
    expect(second.output()).toMatch(new RegExp(`^completed ${id} `, "m"));
    expect((await task(id)).status).toBe("done");
    // The server's lapse clock may announce the lapse (`lapsed`, no state change) before the
    // waiting second agent's claim takes the task over, or the takeover may come first: once at most.
    const all = (await history(id)).filter((e) => !e.startsWith("heartbeat"));
    expect(all.filter((e) => e === "lapsed system").length).toBeLessThanOrEqual(1);
    const events = all.filter((e) => e !== "lapsed system");
    expect(events).toEqual([
      "created test",
      "claimed first", // with start: one event (started: true)
      "lease_expired system",
      "claimed second",
      "completed second",
    ]);
  });

  test("SIGINT mid-task: the agent releases its task and exits 0", async () => {
    const id = await newTask("stop", "interrupted");
    const worker = agent(await createAgentToken(database.db, { name: "stopper" }), ["--queue", "stop", "--work-ms", "60000"]);
    await worker.waitFor(new RegExp(`^claimed ${id} `, "m"));
    worker.process.kill("SIGINT");
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(new RegExp(`^released ${id} v\\d+: shutting down$`, "m"));
    expect(await task(id)).toEqual({ status: "queued", owner: null });
    expect((await history(id)).at(-1)).toBe("released stopper");
  });

  test("a heartbeat that finds the task taken away stops the work at once; the agent goes on", async () => {
    const id = await newTask("taken", "taken away");
    const worker = agent(await createAgentToken(database.db, { name: "robbed" }), ["--queue", "taken", "--lease-seconds", "6", "--work-ms", "60000"]);
    const [claimedLine] = await worker.waitFor(new RegExp(`^claimed ${id} v(\\d+) .*$`, "m"));
    await as(forceRelease, { taskId: id, version: Number(/ v(\d+)/.exec(claimedLine)![1]) });
    // Within a third of the lease the next heartbeat hears the news; the task is queued, so it is claimed anew.
    await worker.waitFor(new RegExp(`^abandoned ${id}: (not_owner|version_conflict|invalid_transition): `, "m"), 15_000);
    await worker.waitFor(new RegExp(`^abandoned ${id}[^]*^claimed ${id} `, "m"));
    expect(worker.output()).not.toMatch(/^completed /m);
    worker.process.kill("SIGTERM");
    expect(await worker.exited, worker.output()).toBe(0);
  });

  test("needs_check: skipped without --confirm-checks, started with the check confirmed with it", async () => {
    const id = await newTask("checks", "sent half an email");
    const held = (await as(claimNext, { queue: "checks" }))!;
    await as(recordSideEffect, { taskId: id, version: held.version, description: "began sending" });
    await as(release, { taskId: id, version: held.version });

    // An agent that will not confirm checks asks the server to skip such tasks: it finds nothing.
    const careful = agent(await createAgentToken(database.db, { name: "careful" }), ["--queue", "checks", "--once"]);
    expect(await careful.exited, careful.output()).toBe(0);
    expect(careful.output()).toMatch(/^nothing to claim$/m);
    expect(careful.output()).not.toMatch(new RegExp(`^claimed ${id} `, "m"));

    const checker = agent(await createAgentToken(database.db, { name: "checker" }), ["--queue", "checks", "--confirm-checks", "--work-ms", "100", "--once"]);
    expect(await checker.exited, checker.output()).toBe(0);
    expect(checker.output()).toMatch(new RegExp(`^started ${id} v\\d+ \\(check confirmed\\)$`, "m"));
    expect((await task(id)).status).toBe("done");
    expect((await history(id)).slice(-4)).toEqual(["claimed checker", "check_confirmed checker", "started checker", "completed checker"]);
  });

  test("--effects: the simulated call is an intent before and applied after; an unknown one left by a lapse is resolved first", async () => {
    // The earlier holder is a person: no grace, so the agent may take the lapsed task at once.
    await makeQueue(database.db, "effects", { personGraceSeconds: 0 });
    const id = await newTask("effects", "charge the card");
    // An earlier holder intended the call and vanished: its intent is unknown once its lease lapses.
    const held = (await as(claimNext, { queue: "effects", start: true }))!;
    const { effect } = await as(recordEffect, { taskId: id, version: held.version, name: "simulated external call", key: "simulated-call" });
    await database.client`UPDATE tasks SET lease_until = now() - interval '1 second' WHERE id = ${id}`;

    const worker = agent(await createAgentToken(database.db, { name: "careful-caller" }), ["--queue", "effects", "--effects", "--work-ms", "100", "--once"]);
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(new RegExp(`^resolved effect ${effect.id} of ${id} \\(left unknown by attempt 1\\): applied$`, "m"));
    expect((await task(id)).status).toBe("done");
    const effects = await database.client`SELECT state, attempt, idempotency_key FROM task_effects WHERE task_id = ${id} ORDER BY id`;
    // The same key for both attempts: one effect, applied — the call is never made twice under two keys.
    expect(effects.map((e) => [e.state, e.idempotency_key])).toEqual([["applied", effect.idempotencyKey]]);
    expect((await history(id)).filter((h) => h.startsWith("effect_"))).toEqual([
      "effect_intended test", "effect_unknown system", "effect_resolved careful-caller",
    ]);
  });

  test("--ask: asks a person before working, waits with its lease parked, prints the answer, then completes", async () => {
    const id = await newTask("asking", "refund order 9");
    const worker = agent(await createAgentToken(database.db, { name: "asking-agent" }), ["--queue", "asking", "--ask", "Refund in full?", "--work-ms", "100", "--once"]);
    const [, questionId] = (await worker.waitFor(/^asked on \d+ \(question (\d+),/m, 60_000))!;
    expect((await task(id)).status).toBe("awaiting_input");
    await as(answerQuestion, { taskId: id, questionId: questionId!, text: "yes, in full" });
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(new RegExp(`^answer on ${id} from test: yes, in full$`, "m"));
    expect((await task(id)).status).toBe("done");
    expect((await history(id)).filter((h) => h.startsWith("question_"))).toEqual(["question_asked asking-agent", "question_answered test"]);
  });

  test("--spend: reports spend with each heartbeat; parked at the budget it waits for a supervisor's raise, then completes", async () => {
    const queue = await makeQueue(database.db, "spending", { leaseSeconds: 6 });
    const { id } = await as(createTask, { title: "metered work", queue, budget: { limit: 3, unit: "usd_cents" } });
    const worker = agent(await createAgentToken(database.db, { name: "spending-agent" }), ["--queue", queue, "--spend", "1", "--work-ms", "9000", "--once"]);
    await worker.waitFor(new RegExp(`^parked ${id} at its budget: spent 3 of 3 usd_cents`, "m"), 60_000);
    const parked = (await loadTask(database.db, id))!;
    expect(parked).toMatchObject({ status: "awaiting_input", spent: 3, owner: { name: "spending-agent" } });
    await perform(raiseBudget, { taskId: id, version: parked.version, add: 10 }, { db: database.db, actor: creator, standing: "supervisor" });
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(new RegExp(`^resumed ${id}: the budget is 13 usd_cents$`, "m"));
    const done = (await loadTask(database.db, id))!;
    expect(done).toMatchObject({ status: "done", budget: { limit: 13, unit: "usd_cents" } });
    expect(done.spent).toBeGreaterThanOrEqual(4); // 3 to the park, the completion's 1, and any heartbeat after the raise
    expect((await history(id)).filter((h) => h.startsWith("budget_"))).toEqual(["budget_warning spending-agent", "budget_reached system", "budget_raised test"]);
  });

  test("--effects --downstream FILE: an unknown effect not applied downstream is resolved failed and the call made under a key of the new attempt", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-downstream-"));
    const file = path.join(dir, "applied.txt");
    try {
      await makeQueue(database.db, "effects-downstream", { personGraceSeconds: 0 }); // a person held it: no grace
      const id = await newTask("effects-downstream", "charge once");
      const held = (await as(claimNext, { queue: "effects-downstream", start: true }))!;
      const { effect } = await as(recordEffect, { taskId: id, version: held.version, name: "simulated external call", key: "simulated-call" });
      await database.client`UPDATE tasks SET lease_until = now() - interval '1 second' WHERE id = ${id}`;
      const worker = agent(await createAgentToken(database.db, { name: "downstream-caller" }), ["--queue", "effects-downstream", "--effects", "--downstream", file, "--work-ms", "100", "--once"]);
      expect(await worker.exited, worker.output()).toBe(0);
      expect(worker.output()).toMatch(new RegExp(`^resolved effect ${effect.id} of ${id} \\(left unknown by attempt 1\\): failed$`, "m"));
      const effects = await database.client`SELECT state, idempotency_key FROM task_effects WHERE task_id = ${id} ORDER BY id`;
      expect(effects.map((e) => e.state)).toEqual(["failed", "applied"]);
      expect(readFileSync(file, "utf8")).toBe(`${effects[1]!.idempotency_key}\n`);
      expect(effects[1]!.idempotency_key).not.toBe(effect.idempotencyKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--scoped: the work is done with a claim token of the attempt, acting as the agent", async () => {
    const id = await newTask("scoped", "worked by a sub-client");
    const worker = agent(await createAgentToken(database.db, { name: "scoped-agent" }), ["--queue", "scoped", "--scoped", "--effects", "--work-ms", "100", "--once"]);
    expect(await worker.exited, worker.output()).toBe(0);
    expect(worker.output()).toMatch(new RegExp(`^claim token for ${id} attempt 1 \\(read, progress, effects, complete, fail, release, comment, ask\\)$`, "m"));
    expect(worker.output()).not.toContain("cbc_");
    expect((await task(id)).status).toBe("done");
    const [minted] = await database.client`SELECT count(*)::int AS n FROM claim_tokens WHERE task_id = ${id}`;
    expect(minted!.n).toBe(1);
    // The claim token acted as the agent: the events name it.
    expect(await history(id)).toEqual([
      "created test", "claimed scoped-agent", "effect_intended scoped-agent", "effect_resolved scoped-agent", "completed scoped-agent",
    ]);
  });

  test("--steps N: each step checkpointed (with a claim token's progress op under --scoped); a task handed at step 2 resumes at 3", async () => {
    const id = await newTask("stepped", "three steps");
    const worker = agent(await createAgentToken(database.db, { name: "stepper" }), ["--queue", "stepped", "--steps", "3", "--scoped", "--work-ms", "300", "--once"]);
    expect(await worker.exited, worker.output()).toBe(0);
    for (const step of [1, 2, 3]) expect(worker.output()).toMatch(new RegExp(`^checkpoint ${step}/3 on ${id} \\(attempt 1\\)$`, "m"));
    expect(worker.output()).not.toMatch(/^resuming /m);
    expect(await history(id)).toEqual(["created test", "claimed stepper", "checkpointed stepper", "checkpointed stepper", "checkpointed stepper", "completed stepper"]);

    // Handed a task whose last attempt checkpointed step 2 (and released it): steps 3 and 4 only.
    const handed = await newTask("stepped", "four steps, two done");
    const first = await createActor(database.db, "agent", "first-stepper");
    const held = await perform(claimNext, { queue: "stepped", start: true }, { db: database.db, actor: first });
    if (!held.ok || !held.value) throw new Error("the first stepper claimed nothing");
    const done = await perform(recordCheckpoint, { taskId: handed, version: held.value.version, step: 2, state: { done: 2 } }, { db: database.db, actor: first });
    if (!done.ok) throw new Error(done.error.message);
    await perform(release, { taskId: handed, version: held.value.version }, { db: database.db, actor: first });
    const next = agent(await createAgentToken(database.db, { name: "next-stepper" }), ["--queue", "stepped", "--steps", "4", "--work-ms", "400", "--once"]);
    expect(await next.exited, next.output()).toBe(0);
    expect(next.output()).toMatch(new RegExp(`^resuming ${handed} at step 3 of 4 \\(checkpoint 2 by first-stepper, attempt 1\\)$`, "m"));
    expect(next.output().match(/^checkpoint \d\/4/gm)).toEqual(["checkpoint 3/4", "checkpoint 4/4"]);
  });
});
