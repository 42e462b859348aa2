import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createActor, createTask, perform, type ActorRef } from "@/lib/tasks";
import { startAgent, type RunningAgent } from "@/test/cli";
import { httpFixture, type HttpFixture } from "@/test/http/helpers";
import { call, connect, resultJson, type McpSession } from "@/test/mcp/helpers";

// A day of an agent's life in seconds (docs/claiming.md "Waiting for work"): idle stretches
// and bursts of tasks, for the reference agent (scripts/agent.ts) and for an MCP client (the
// SDK's client over stdio, whose server calls the API) calling claim_next_task in a loop.
// A proxy in front of the server records every request of each token: while idle each sends
// nothing but its waiting claim, one open at a time; each burst is worked through.

const WAIT = 2; // seconds a claim waits: the day's minutes compressed
const IDLE_MS = 5_500;

interface Seen {
  token: string;
  method: string;
  path: string;
  waits: boolean;
  start: number;
  end: number;
}

/** A proxy to `target` that records each request (its bearer, its path, whether its body asks to wait) and when it ended. */
async function countingProxy(target: string) {
  const seen: Seen[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      type Body = { wait?: number; next?: { wait?: number } } | null;
      const parsed = ((): Body => {
        try {
          return body.length > 0 ? (JSON.parse(body.toString()) as Body) : null;
        } catch {
          return null;
        }
      })();
      const entry: Seen = {
        token: String(req.headers.authorization ?? "").slice(-12), method: req.method!, path: req.url!,
        waits: (parsed?.wait ?? 0) > 0 || (parsed?.next?.wait ?? 0) > 0, start: Date.now(), end: Infinity,
      };
      seen.push(entry);
      const upstream = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      res.on("close", () => {
        entry.end = Math.min(entry.end, Date.now());
        upstream.destroy();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let f: HttpFixture;
let creator: ActorRef;
let proxy: Awaited<ReturnType<typeof countingProxy>>;
beforeAll(async () => {
  f = await httpFixture();
  creator = await createActor(f.database.db, "user", "Creator");
  proxy = await countingProxy(f.server.url);
});
afterAll(async () => {
  await proxy?.close();
  await f?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function burst(queues: string[], n: number, label: string) {
  for (const queue of queues) {
    for (let i = 0; i < n; i++) {
      const made = await perform(createTask, { title: `${label} ${i}`, queue }, { db: f.database.db, actor: creator });
      if (!made.ok) throw new Error(made.error.message);
    }
  }
}

async function allDone(queues: string[]): Promise<void> {
  for (let i = 0; ; i++) {
    const [row] = await f.database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE queue = ANY(${queues}) AND status <> 'done'`;
    if (row!.n === 0) return;
    if (i > 600) throw new Error("a burst was not worked through");
    await sleep(100);
  }
}

test("the reference agent and an MCP client through idle stretches and bursts: while idle, one waiting claim at a time and nothing else", async () => {
  const agentQueue = await f.queue("day-agent");
  const mcpQueue = await f.queue("day-mcp");
  const agentToken = await f.token("day-agent");
  const mcpToken = await f.token("day-mcp");

  let agent: RunningAgent | null = null;
  let mcp: McpSession | null = null;
  let running = true;
  try {
    agent = startAgent(["--queue", agentQueue, "--url", proxy.url, "--wait", String(WAIT), "--work-ms", "100"], { CLAIMBOARD_TOKEN: agentToken });
    mcp = await connect({ ...f, server: { ...f.server, url: proxy.url } }, "stdio", mcpToken);
    const session = mcp;
    // What a model's loop does: claim (waiting), work, complete, and claim again.
    const loop = (async () => {
      while (running) {
        const json = resultJson(await call(session, "claim_next_task", { queue: mcpQueue, start: true, wait: WAIT }));
        const task = json.task as { id: string; version: number } | null;
        if (!task) continue;
        const done = await call(session, "complete_task", { id: task.id, version: task.version });
        expect(done.isError ?? false, JSON.stringify(done.content)).toBe(false);
      }
    })();

    const idle: [number, number][] = [];
    const stretch = async () => {
      const from = Date.now();
      await sleep(IDLE_MS);
      idle.push([from, Date.now()]);
    };
    await sleep(1_000); // both started and waiting
    await stretch();
    await burst([agentQueue, mcpQueue], 4, "morning");
    await allDone([agentQueue, mcpQueue]);
    await sleep(500); // the last completion's answer back
    await stretch();
    await burst([agentQueue, mcpQueue], 2, "noon");
    await allDone([agentQueue, mcpQueue]);
    await sleep(500);
    await stretch();
    running = false;
    agent.process.kill("SIGINT");
    await agent.exited;
    await Promise.race([loop, sleep(WAIT * 1000 + 2_000)]);

    for (const token of [agentToken, mcpToken]) {
      const mine = proxy.seen.filter((s) => s.token === token.slice(-12));
      const waits = mine.filter((s) => s.waits);
      expect(waits.length, `${token === agentToken ? "agent" : "MCP"} made no waiting claim`).toBeGreaterThan(0);
      // One wait open at a time, all day long.
      const sorted = [...waits].sort((a, b) => a.start - b.start);
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start, "two waits open at once").toBeGreaterThanOrEqual(sorted[i - 1]!.end);
      for (const [from, to] of idle) {
        const during = mine.filter((s) => s.start >= from && s.start < to);
        // Nothing but waiting claims while idle: no poll, no heartbeat, no read.
        expect(during.filter((s) => !s.waits).map((s) => `${s.method} ${s.path}`)).toEqual([]);
        expect(during.every((s) => s.method === "POST" && s.path === "/api/v1/claims")).toBe(true);
        // A wait at a time, each held to its end: about one per WAIT seconds.
        expect(during.length).toBeGreaterThanOrEqual(1);
        expect(during.length).toBeLessThanOrEqual(Math.ceil((to - from) / (WAIT * 1000)) + 1);
      }
    }
  } finally {
    running = false;
    if (agent && agent.process.exitCode === null) agent.process.kill("SIGKILL");
    await mcp?.close();
  }
}, 180_000);
