import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { expectErrorShape, httpFixture, type HttpFixture, type HttpResult } from "@/test/http/helpers";

// DNS rebinding (MCP specification, Streamable HTTP: "Servers MUST validate the Origin
// header"): a page on evil.example whose name now resolves to this server makes the
// person's browser POST /api/mcp with Host: evil.example. /api/mcp answers 403 to a Host or
// an Origin outside the allowed set — the app's own URL (NEXTAUTH_URL / AUTH_URL, and its
// loopback aliases), plus MCP_ALLOWED_HOSTS — before anything else runs, token or not.

let f: HttpFixture;
let token: string;
let port: string;

beforeAll(async () => {
  f = await httpFixture({ MCP_ALLOWED_HOSTS: "board.example, mcp.example:8443", TRUST_PROXY: "1" });
  token = await f.token("rebinding", "agent");
  port = new URL(f.server.url).port;
});
afterAll(async () => {
  await f?.close();
});

/** A raw HTTP request (fetch would not let the test choose Host). */
function rpc(headers: Record<string, string>, method = "POST"): Promise<HttpResult> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const url = new URL(`${f.server.url}/api/mcp`);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname, port: url.port, path: url.pathname, method,
      headers: {
        "content-type": "application/json", accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`, "content-length": Buffer.byteLength(body), ...headers,
      },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
        resolve({ status: res.statusCode!, headers: h, text, body: parsed });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const toolCount = (res: HttpResult) => (res.body as { result: { tools: unknown[] } }).result.tools.length;

test("the app's own Host and Origin (and its loopback aliases) are served", async () => {
  const cases: Record<string, string>[] = [
    { host: `127.0.0.1:${port}` },
    { host: `127.0.0.1:${port}`, origin: f.server.url },
    { host: `localhost:${port}`, origin: `http://localhost:${port}` },
  ];
  for (const headers of cases) {
    const res = await rpc(headers);
    expect(res.status, `${JSON.stringify(headers)}: ${res.text}`).toBe(200);
    expect(toolCount(res)).toBeGreaterThan(0);
  }
});

test("a Host that is not the app's: 403 forbidden in the API's error shape, before authentication", async () => {
  for (const host of ["evil.example", `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, "board.example.evil.example"]) {
    const res = await rpc({ host });
    expect(res.status, `${host}: ${res.text}`).toBe(403);
    expect(expectErrorShape(res).code).toBe("forbidden");
  }
  // Not even the 401 of a missing token, nor the 405 of another method, tells such a page anything.
  const anonymous = await rpc({ host: "evil.example", authorization: "" });
  expect(anonymous.status).toBe(403);
  const get = await rpc({ host: "evil.example" }, "GET");
  expect(get.status).toBe(403);
});

test("an Origin that is not the app's: 403, whatever the Host", async () => {
  for (const origin of ["https://evil.example", "null", `http://127.0.0.1:${Number(port) + 1}`, "not a url"]) {
    const res = await rpc({ host: `127.0.0.1:${port}`, origin });
    expect(res.status, `${origin}: ${res.text}`).toBe(403);
    expect(expectErrorShape(res).code).toBe("forbidden");
  }
});

test("MCP_ALLOWED_HOSTS adds names (a port only where given); behind TRUST_PROXY=1 the forwarded Host is the one checked", async () => {
  expect((await rpc({ host: "board.example" })).status).toBe(200);
  expect((await rpc({ host: "board.example:3000", origin: "https://board.example:3000" })).status).toBe(200);
  expect((await rpc({ host: "mcp.example:8443" })).status).toBe(200);
  expect((await rpc({ host: "mcp.example" })).status).toBe(403);
  expect((await rpc({ host: "mcp.example:8444" })).status).toBe(403);
  // The proxy forwards the browser's Host as X-Forwarded-Host: that is the name to check.
  expect((await rpc({ host: `127.0.0.1:${port}`, "x-forwarded-host": "evil.example" })).status).toBe(403);
  expect((await rpc({ host: "internal:80", "x-forwarded-host": "board.example" })).status).toBe(200);
});
