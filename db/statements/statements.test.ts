import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { z } from "zod";
import type { Db } from "@/db/client";
import {
  claim, claimNext, complete, completeAndClaimNext, completeMany, createActor, createTask, ManualClock, perform, renew, start,
  type ActorRef, type Operation,
} from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { RERENDER, sqlFile, statementsSent, type Sent } from "./render";

// The hot statements, rendered into db/statements/*.sql from what the engine sends, so a
// reviewer sees a statement change as a diff of SQL. Fails when a rendered text differs from
// its committed file; `UPDATE_STATEMENTS=1` rewrites the files instead. Production's clock
// (now()), as the server runs them.

const DIR = import.meta.dirname;
const update = process.env.UPDATE_STATEMENTS === "1";

let database: TestDatabase;
let agent: ActorRef;
let creator: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  agent = await createActor(database.db, "agent", "Renderer");
  creator = await createActor(database.db, "user", "Creator");
});
afterAll(async () => {
  await database?.close();
});

async function must<S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>, actor = agent, db: Db = database.db, clock?: ManualClock): Promise<O> {
  const result = await perform(op, input, { db, actor, ...(clock ? { clock } : {}) });
  if (!result.ok) throw new Error(`${op.name}: ${result.error.code}: ${result.error.message}`);
  return result.value;
}
const run = <S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>) => async (db: Db) => must(op, input, agent, db);
const newTask = async (queue: string, title = "rendered") => (await makeQueue(database.db, queue), must(createTask, { title, queue }, creator));
const started = async (queue: string) => {
  const task = await newTask(queue);
  await must(claim, { taskId: task.id, version: 1 });
  return must(start, { taskId: task.id, version: 2 });
};

const rendered = new Set<string>();

/** Compares (or, with UPDATE_STATEMENTS=1, writes) one file. */
function check(file: string, title: string, about: string, sent: Sent[]) {
  rendered.add(file);
  const text = sqlFile(title, about, sent);
  const target = path.join(DIR, file);
  if (update) return writeFileSync(target, text);
  expect(text, `${file} differs from what the engine sends: re-render with ${RERENDER}`).toBe(readFileSync(target, "utf8"));
}

test("claim-next in a plain queue: the gated claim, one statement", async () => {
  await newTask("plain");
  const sent = await statementsSent(database.url, run(claimNext, { queue: "plain", start: true }));
  check("claim-next-gated.sql", "claim-next, gated (POST /claims, claim_next_task; a plain queue)",
    "A queue with nothing to settle claims in one statement: the gate (queue open, admitting,\nno lapsed lease, no reserving task, claimer under its cap) and the walk together.", sent);
});

test("claim-next where the gate is shut: the queue's rules, then the plain claim", async () => {
  // A lease that lapsed an hour ago (its claim made on a clock an hour behind) shuts the gate.
  const behind = new ManualClock(new Date(Date.now() - 3_600_000));
  await newTask("rules", "lapses");
  await must(claimNext, { queue: "rules", leaseSeconds: 60 }, agent, database.db, behind);
  await newTask("rules");
  const sent = await statementsSent(database.url, run(claimNext, { queue: "rules", start: true }));
  check("claim-next-plain.sql", "claim-next, plain (a queue with a lapsed lease)",
    "The gate is shut, so the queue's state is read, lapses at their ceiling are struck, and the\nplain claim walks queued, due and lapsed tasks.", sent);
});

test("claim of a named task", async () => {
  const task = await newTask("named");
  const sent = await statementsSent(database.url, run(claim, { taskId: task.id, version: 1 }));
  check("claim.sql", "claim (POST /tasks/{id}/claim, claim_task)", "One guarded UPDATE of the named task, queued or with a lapsed lease.", sent);
});

test("a transition: start", async () => {
  const task = await newTask("transition");
  await must(claim, { taskId: task.id, version: 1 });
  const sent = await statementsSent(database.url, run(start, { taskId: task.id, version: 2 }));
  check("transition.sql", "a transition: start (POST /tasks/{id}/start)",
    "Every owner's move is this shape (lib/tasks/core/transition.ts): one guarded UPDATE, then its event.", sent);
});

test("renew", async () => {
  const task = await started("renew");
  const sent = await statementsSent(database.url, run(renew, { taskId: task.id, version: 3 }));
  check("renew.sql", "renew (POST /tasks/{id}/heartbeat, report_progress)", "The lease extended by its own length; the version stays.", sent);
});

test("complete one, and the events' insert it ends with", async () => {
  const task = await started("complete");
  const sent = await statementsSent(database.url, run(complete, { taskId: task.id, version: 3, result: { ok: true } }));
  check("complete-one.sql", "complete (POST /tasks/{id}/complete, complete_task)", "One completion: a batch of one, with plain parameters.", sent);
  const events = sent.filter((s) => s.text.includes("INSERT INTO task_events"));
  expect(events).toHaveLength(1);
  check("events-insert.sql", "the events' insert (every write's last statement)",
    "The events of one transaction in one INSERT, with its NOTIFY; sent behind COMMIT (db/client.ts).", events);
});

test("complete many", async () => {
  const [a, b] = [await started("many"), await started("many")];
  const sent = await statementsSent(database.url, run(completeMany, { tasks: [{ id: a.id, version: 3 }, { id: b.id, version: 3 }] }));
  check("complete-many.sql", "complete many (POST /completions)", "A batch as one JSON parameter, so every batch size shares the statement.", sent);
});

test("complete and claim the next", async () => {
  const task = await started("loop");
  await newTask("loop", "next");
  const sent = await statementsSent(database.url, run(completeAndClaimNext, { taskId: task.id, version: 3, next: { queue: "loop", start: true } }));
  check("complete-next.sql", "complete + next (POST /tasks/{id}/complete with next): the agent loop",
    "The completion and the gated claim of the next task in one transaction, sent in one round trip.", sent);
});

test("every .sql file here is one the test renders (none left behind by a renamed statement)", () => {
  expect(readdirSync(DIR).filter((f) => f.endsWith(".sql")).sort()).toEqual([...rendered].sort());
});
