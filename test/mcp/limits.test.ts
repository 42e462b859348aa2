import { afterAll, beforeAll, expect, test } from "vitest";
import { expectErrorShape, httpFixture, type HttpFixture, type HttpResult } from "@/test/http/helpers";

// POST /api/mcp is held to the API's own limits, by the API's own guard: the per-token rate
// limit (one share per MCP request, one per message of a batch) and the failed-auth throttle.

let f: HttpFixture;
let token: string;

beforeAll(async () => {
  f = await httpFixture({ RATE_LIMIT_BURST: "4", RATE_LIMIT_PER_SECOND: "0.2", AUTH_FAILURE_BURST: "3", AUTH_FAILURES_PER_MINUTE: "1" });
  token = await f.token("limited");
});
afterAll(async () => {
  await f?.close();
});

async function rpc(authorization: string | null, body: unknown): Promise<HttpResult> {
  const res = await fetch(`${f.server.url}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

test("a batch takes a share per message, and past the token's burst MCP requests are 429 rate_limited with Retry-After", async () => {
  expect((await rpc(`Bearer ${token}`, [list(1), list(2)])).status).toBe(200); // 2 of 4
  expect((await rpc(`Bearer ${token}`, list(3))).status).toBe(200); // 3 of 4
  const over = await rpc(`Bearer ${token}`, [list(4), list(5)]); // 4, then 5: refused
  expect(over.status).toBe(429);
  expect(expectErrorShape(over).code).toBe("rate_limited");
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  expect((await rpc(`Bearer ${token}`, list(6))).status).toBe(429);
});

test("failed authentications are throttled per address, as for the API", async () => {
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await rpc("Bearer cb_nope", list(i)));
  expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429, 429]);
  expect(expectErrorShape(answers[3]!).code).toBe("rate_limited");
  // The API's routes share the same bucket: the next bad token there is throttled too.
  expect((await f.api.get("/tasks", "cb_nope")).status).toBe(429);
});
