import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { revokeAgentToken } from "@/lib/auth/tokens";
import { httpFixture, type HttpFixture } from "@/test/http/helpers";
import { connect, taskOf } from "./helpers";

// A stdio MCP server whose token is revoked stops at once at its next call (a lease renewal at
// a third of the lease): it exits, saying why, instead of living on as a session nobody may use.

let f: HttpFixture;
let agent: string;
beforeAll(async () => {
  f = await httpFixture();
  agent = await f.token("stdio-revoked");
  await f.queueSettings("short-revoked", { leaseSeconds: 6 });
});
afterAll(async () => {
  await f?.close();
});

test("revoking the token of a stdio MCP server that holds a lease makes it exit at its next renewal", { timeout: 60_000 }, async () => {
  await f.api.post("/tasks", agent, { title: "held by stdio", queue: "short-revoked" });
  const mcp = await connect(f, "stdio", agent);
  await taskOf(mcp, "claim_next_task", { queue: "short-revoked", start: true });
  const pid = mcp.pid!;
  expect(await revokeAgentToken(f.database.db, "stdio-revoked")).toBe(true);
  const began = Date.now();
  let alive = true;
  while (alive && Date.now() - began < 15_000) {
    await sleep(250);
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
  }
  expect(alive, "the stdio server exited").toBe(false);
  expect(mcp.stderr()).toContain("no longer accepts this token");
  await mcp.close().catch(() => undefined);
});
