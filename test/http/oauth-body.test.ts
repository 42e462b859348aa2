import http from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { httpFixture, type HttpFixture } from "./helpers";

// The OAuth token and revoke routes refuse a body past 16 KiB as it arrives, without reading it
// whole first: a body that never ends is answered once it passes the limit, not waited on. So
// does the MCP endpoint past the API's limit (256 KiB): proxy.ts, which would have Next read a
// body of up to 10 MB before the route's check, does not run for any of them.

let f: HttpFixture;
beforeAll(async () => {
  f = await httpFixture();
});
afterAll(async () => {
  await f?.close();
});

/** POSTs a form body that keeps coming (chunked, no Content-Length); resolves with the status, or "no answer" after 8 s. */
function endless(path: string, declared?: number, extra: Record<string, string> = {}): Promise<number | "no answer"> {
  return new Promise((resolve) => {
    const url = new URL(path, f.server.url);
    const headers = { "content-type": "application/x-www-form-urlencoded", ...(declared ? { "content-length": String(declared) } : {}), ...extra };
    const req = http.request(url, { method: "POST", headers }, (res) => {
      clearInterval(feeding);
      clearTimeout(timer);
      res.resume();
      req.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => {});
    req.write(`client_id=x&token=${"a".repeat(4096)}`);
    const feeding = setInterval(() => (declared ? undefined : req.write("a".repeat(4096))), 50);
    const timer = setTimeout(() => {
      clearInterval(feeding);
      req.destroy();
      resolve("no answer");
    }, 8000);
  });
}

test.each(["/api/oauth/token", "/api/oauth/revoke"])("%s answers a body that never ends with 400 once it passes 16 KiB", async (path) => {
  expect(await endless(path)).toBe(400);
});

test.each(["/api/oauth/token", "/api/oauth/revoke"])("%s answers a declared Content-Length past 16 KiB with 400 before the body arrives", async (path) => {
  expect(await endless(path, 10 * 1024 * 1024)).toBe(400);
});

test("/api/mcp answers a body that never ends with 413 once it passes the API's limit", async () => {
  const token = await f.token("mcp-endless", "agent");
  expect(await endless("/api/mcp", undefined, { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` })).toBe(413);
});
