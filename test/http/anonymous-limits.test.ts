import { afterAll, beforeAll, expect, test } from "vitest";
import { httpFixture, type HttpFixture } from "./helpers";

// Without TRUST_PROXY every caller looks alike to the server (lib/http/failed-auth.ts): a flood of
// bad tokens is throttled on its own, and never turns into a 429 for someone else's OAuth
// discovery, a client's expired token or anyone's client registration. And the server says
// once, in its output, when requests arrive through something that sets X-Forwarded-For.

let f: HttpFixture;
beforeAll(async () => {
  f = await httpFixture({ AUTH_FAILURE_BURST: "3", AUTH_FAILURES_PER_MINUTE: "0.5" });
});
afterAll(async () => {
  await f?.close();
});

const mcp = (authorization: string | null) => fetch(`${f.server.url}/api/mcp`, {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(authorization ? { authorization } : {}) },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
});
const register = (redirect: string) => fetch(`${f.server.url}/api/oauth/register`, {
  method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Someone's client", redirect_uris: [redirect] }),
});

test("a bad-token flood is throttled on its own: discovery, an expired token and registration still answer as they should", async () => {
  const flood = [];
  for (let i = 0; i < 8; i++) flood.push((await f.api.get("/tasks", `cb_${String(i).padStart(43, "x")}`, { "x-forwarded-for": "198.51.100.4" })).status);
  expect(flood.slice(-3)).toEqual([429, 429, 429]);

  // An MCP client's first request carries no token: its 401 names where to sign in.
  for (let i = 0; i < 4; i++) {
    const discovery = await mcp(null);
    expect(discovery.status).toBe(401);
    expect(discovery.headers.get("www-authenticate")).toMatch(/resource_metadata=/);
  }
  const bare = await f.api.get("/tasks", "");
  expect(bare.status, bare.text).toBe(401);

  // A token this server issued that has expired: 401 invalid_token, every time, whatever the flood did.
  const stale = await f.token("stale");
  await f.database.client`UPDATE agent_tokens SET expires_at = now() - interval '1 minute' WHERE name = 'stale'`;
  for (let i = 0; i < 4; i++) {
    const refused = await mcp(`Bearer ${stale}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/resource_metadata=/);
  }

  // Registration: the flood's registrations throttle the flood's redirect URIs only.
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await register("http://127.0.0.1:7777/flood")).status);
  expect(statuses.slice(-2)).toEqual([429, 429]);
  expect((await register("http://127.0.0.1:8888/callback")).status).toBe(201);

  // The flood's own 429 still says how to authenticate.
  const limited = await f.api.get("/tasks", `cb_${"y".repeat(43)}`);
  expect(limited.status).toBe(429);
  expect(limited.headers.get("www-authenticate")).toMatch(/invalid_token/);

  expect(f.server.output().match(/TRUST_PROXY is not set/g)).toHaveLength(1);
});
