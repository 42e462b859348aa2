import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { scriptNodeArgs } from "@/test/cli";
import { expectNoLeak, expectTaskResponse, httpFixture, type HttpFixture } from "@/test/http/helpers";
import { connect, eventTypes, taskOf, type McpSession } from "./helpers";

// What one MCP transport does that the other does not (the shared tools: tools.test.ts):
// stdio's raw lines, the HTTP endpoint's 401 and refusals, the caller's instance, renewals.

let f: HttpFixture;
const tokens: Record<string, string> = {};
const sessions: McpSession[] = [];

beforeAll(async () => {
  f = await httpFixture();
  for (const [name, role] of [["mcp-http", "agent"], ["rival", "agent"]] as const) {
    tokens[name] = await f.token(name, role);
  }
  for (const queue of ["mcp-instance", "mcp-renew"]) await f.queue(queue);
});
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  if (f) {
    // No token in any log: the server's, nor any MCP process's.
    const logs = f.server.output() + sessions.map((s) => s.stderr()).join("");
    for (const [name, token] of Object.entries(tokens)) {
      expect(logs.includes(token) || logs.includes(token.slice(3)), `token ${name} in a log`).toBe(false);
    }
  }
  await f?.close();
});

describe("over stdio only", () => {
  test("lines that are not JSON-RPC are skipped without a word on stdout or a stack; the next request is answered", { timeout: 120_000 }, async () => {
    const env = { PATH: process.env.PATH ?? "", CLAIMBOARD_URL: f.server.url, CLAIMBOARD_TOKEN: tokens.rival! } as unknown as NodeJS.ProcessEnv;
    const child = spawn(process.execPath, [...scriptNodeArgs, "scripts/mcp.ts"], { env, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.stdin.write('{not json\n[1,2\n{"jsonrpc":"2.0"}\n"just a string"\n');
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) + "\n");
    // tsx compiles and the server asks the API about the token before answering: slow on a busy machine.
    for (let i = 0; i < 900 && !stdout.includes('"id":1'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toMatchObject({ id: 1, result: { serverInfo: { name: "claimboard" } } });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
    expectNoLeak(stderr);
    expect(stderr).not.toContain(tokens.rival);
  });
});

describe("over HTTP only", () => {
  test("no token: 401 in the API's error shape, as for every API call", async () => {
    const init = { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    for (const authorization of [undefined, "Bearer cb_not-a-token"]) {
      const res = await fetch(`${f.server.url}/api/mcp`, { ...init, headers: { ...init.headers, ...(authorization ? { authorization } : {}) }, body });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      expect(await res.json()).toMatchObject({ error: { code: "unauthorized" } });
    }
  });

  test("the caller's Claimboard-Instance reaches the events, never the server's own", async () => {
    const named = await connect(f, "http", tokens["mcp-http"]!, { "Claimboard-Instance": "laptop-7:4242" });
    const plain = await connect(f, "http", tokens["mcp-http"]!);
    sessions.push(named, plain);
    const a = await taskOf(named, "create_task", { title: "from laptop-7", queue: "mcp-instance" });
    await taskOf(named, "claim_task", { id: a.id, version: 1 });
    const b = await taskOf(plain, "create_task", { title: "from nowhere", queue: "mcp-instance" });
    await taskOf(plain, "claim_task", { id: b.id, version: 1 });
    const instances = async (id: string) => (await eventTypes(f, id)).filter((e) => e.type === "claimed").map((e) => e.payload.instance);
    expect(await instances(a.id)).toEqual(["laptop-7:4242"]);
    expect(await instances(b.id)).toEqual([undefined]);
  });

  test("bodies that are not MCP are refused in 4xx without a stack; the endpoint keeps answering", async () => {
    const post = (body: string) => fetch(`${f.server.url}/api/mcp`, {
      method: "POST", body,
      headers: { authorization: `Bearer ${tokens.rival}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    });
    for (const body of ["{not json", "[]", "{}", '{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_task","arguments":"42"}}', "[".repeat(100) + "]".repeat(100)]) {
      const res = await post(body);
      const text = await res.text();
      expect(res.status < 500, `${body}: ${res.status} ${text}`).toBe(true);
      expectNoLeak(text);
    }
    const ok = await post(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }));
    expect(ok.status).toBe(200);
  });

  test("each tool call by the owner on a held task renews its lease", async () => {
    const mcp = await connect(f, "http", tokens["mcp-http"]!);
    sessions.push(mcp);
    const task = expectTaskResponse(await f.api.post("/tasks", tokens.rival, { title: "renewed by calls", queue: "mcp-renew" }), 201);
    const claimed = await taskOf(mcp, "claim_task", { id: task.id, version: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const read = await taskOf(mcp, "get_task", { id: task.id });
    expect(Date.parse(read.leaseUntil!)).toBeGreaterThan(Date.parse(claimed.leaseUntil!));
    const beats = (await eventTypes(f, task.id)).filter((e) => e.type === "heartbeat");
    expect(beats.map((e) => e.actor)).toEqual(["mcp-http"]);
    // Someone else's read renews nothing.
    const rival = await connect(f, "http", tokens.rival!);
    sessions.push(rival);
    await taskOf(rival, "get_task", { id: task.id });
    expect((await eventTypes(f, task.id)).filter((e) => e.type === "heartbeat")).toHaveLength(1);
  });
});
