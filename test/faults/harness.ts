import { asc, eq } from "drizzle-orm";
import { expect } from "vitest";
import type { Db } from "@/db/client";
import { taskEvents, tasks, type TaskRow } from "@/db/schema";
import { createAgentToken, type CreatedToken } from "@/lib/auth/tokens";
import { ClaimboardApiError, ClaimboardClient } from "@/lib/client";
import { createActor, foldEvents, perform, type ActorRef, type FoldedTask, type Operation } from "@/lib/tasks";
import { startAgent, type RunningAgent } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { startServer, type TestServer } from "@/test/server";
import type { z } from "zod";

// The fault suite's rig: a database of the file's own, the production server as a process,
// reference agents as processes, and read-backs that say what the database holds.

export interface Rig {
  database: TestDatabase;
  server: TestServer;
  /** The test's own user: creates tasks, changes queue settings, resets breakers. */
  person: ActorRef;
  token(name: string, role?: CreatedToken["role"]): Promise<CreatedToken>;
  /** A reference agent process (`npm run agent`) against the server, killed at the end of the file. */
  agent(token: CreatedToken, args: string[], env?: Record<string, string>): RunningAgent;
  client(token: CreatedToken): ClaimboardClient;
  /** An engine call as `person`, unwrapped. */
  as<S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>): Promise<O>;
  killAgents(): Promise<void>;
  close(): Promise<void>;
}

export async function rig(serverEnv: Record<string, string> = {}): Promise<Rig> {
  const database = await freshDatabase();
  const server = await startServer(database.url, serverEnv);
  const person = await createActor(database.db, "user", "Operator");
  const agents: RunningAgent[] = [];
  const self: Rig = {
    database,
    server,
    person,
    token: (name, role = "agent") => createAgentToken(database.db, { name, role }),
    agent(token, args, env = {}) {
      const started = startAgent(["--url", server.url, ...args], { CLAIMBOARD_TOKEN: token.token, ...env });
      agents.push(started);
      return started;
    },
    client: (token) => new ClaimboardClient({ baseUrl: server.url, token: token.token, timeoutMs: 15_000 }),
    async as(op, input) {
      const result = await perform(op, input, { db: database.db, actor: person });
      if (!result.ok) throw new Error(`${op.name}: ${result.error.code}: ${result.error.message}`);
      return result.value;
    },
    async killAgents() {
      for (const a of agents.splice(0)) {
        if (a.process.exitCode === null && a.process.signalCode === null) {
          a.process.kill("SIGCONT"); // a stopped process would not die of SIGKILL until continued on some systems
          a.process.kill("SIGKILL");
        }
        await a.exited;
      }
    },
    async close() {
      await self.killAgents();
      await server.stop();
      await database.close();
    },
  };
  return self;
}

/** Bounded wait for an async condition; fails saying what it waited for. Never a timing assertion. */
export async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000, everyMs = 100): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The error an API call failed with (the call must fail). */
export async function refusal(call: Promise<unknown>): Promise<ClaimboardApiError> {
  const outcome = await call.then(
    () => null,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ClaimboardApiError)) throw new Error(`expected an API refusal, got ${String(outcome)}`);
  return outcome;
}

/** The row as its events determine it, timestamps as numbers so a mismatch reads plainly. */
const folded = (t: FoldedTask | TaskRow) => ({
  queue: t.queue, title: t.title, priority: t.priority, status: t.status, ownerId: t.ownerId,
  leaseUntil: t.leaseUntil?.getTime() ?? null, leaseSeconds: t.leaseSeconds, version: t.version,
  failureCount: t.failureCount, needsCheck: t.needsCheck, sideEffectRecorded: t.sideEffectRecorded,
  createdAt: t.createdAt.getTime(), updatedAt: t.updatedAt.getTime(),
  checkpointId: t.checkpointId?.toString() ?? null,
});

/**
 * Every transition recorded: the event log of `queue` replayed task by task equals the
 * tasks table. Returns the rows.
 */
export async function expectLogEqualsTable(db: Db, queue: string): Promise<TaskRow[]> {
  const rows = await db.select().from(tasks).where(eq(tasks.queue, queue)).orderBy(asc(tasks.id));
  const events = await db.select().from(taskEvents).where(eq(taskEvents.queue, queue)).orderBy(asc(taskEvents.id));
  const byTask = new Map<string, (typeof events)[number][]>();
  for (const e of events) {
    if (e.taskId === null) continue; // queue-level events (breaker)
    const list = byTask.get(e.taskId.toString()) ?? [];
    list.push(e);
    byTask.set(e.taskId.toString(), list);
  }
  expect(byTask.size, "tasks with events vs rows").toBe(rows.length);
  const mismatched = rows.filter((r) => JSON.stringify(folded(foldEvents(byTask.get(r.id.toString()) ?? []))) !== JSON.stringify(folded(r)));
  for (const r of mismatched.slice(0, 3)) expect(folded(foldEvents(byTask.get(r.id.toString())!)), `task ${r.id}`).toEqual(folded(r));
  expect(mismatched).toHaveLength(0);
  return rows;
}

/** An agent's exit code, failing (not hanging) when it has not exited within `timeoutMs`. */
export async function exitCode(agent: RunningAgent, timeoutMs = 90_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the agent did not exit within ${timeoutMs} ms:\n${agent.output()}`)), timeoutMs);
  });
  try {
    return await Promise.race([agent.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
