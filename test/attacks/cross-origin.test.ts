import { afterAll, beforeAll, expect, test } from "vitest";
import { endpoints, type Endpoint } from "@/lib/http/endpoints";
import { createActor, perform, claim, createTask, failTask, setQueueSettings } from "@/lib/tasks";
import type { Task } from "@/lib/tasks/core/types";
import { expectErrorShape } from "@/test/http/helpers";
import { attackFixture, callAction, manifestActions, mustSignIn, signInOverHttp, stateDigest, type AttackFixture } from "./helpers";
import { makeQueue } from "@/test/queues";

// A page on another site makes the signed-in browser POST to us: server actions check the
// Origin against the Host (Next.js), the API's POST routes accept only bearer tokens, so
// a cookie gets nothing written; reads answer without CORS headers, so the other site
// cannot read them. And `x-middleware-subrequest` (CVE-2025-29927) skips nothing.

const EVIL = "https://evil.example";
let f: AttackFixture;
let supervisorCookie: string;
let escalated: Task;
const actions = manifestActions();

beforeAll(async () => {
  f = await attackFixture({ AUTH_FAILURE_BURST: "100000" });
  const sara = await f.person("sara@example.com", "supervisor");
  supervisorCookie = await mustSignIn(f, sara.email, sara.password);
  const db = f.database.db;
  const admin = await createActor(db, "user", "admin");
  const must = <T>(r: { ok: boolean; value?: T; error?: unknown }) => (r.ok ? r.value! : Promise.reject(new Error(JSON.stringify(r.error))));
  await makeQueue(db, "x");
  await must(await perform(setQueueSettings, { queue: "x", maxFailures: 1 }, { db, actor: admin }));
  const task = await must<Task>(await perform(createTask, { title: "target", queue: "x" }, { db, actor: admin }));
  const held = await must<Task>(await perform(claim, { taskId: task.id, version: 1 }, { db, actor: admin }));
  escalated = await must<Task>(await perform(failTask, { taskId: held.id, version: held.version, reason: "r" }, { db, actor: admin }));
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

test("the session cookie is HttpOnly and SameSite=Lax: browsers do not even send it on a cross-site POST", async () => {
  const csrf = await fetch(`${f.server.url}/api/auth/csrf`);
  const cookies = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const person = await f.person("amal@example.com", "staff");
  const res = await fetch(`${f.server.url}/api/auth/callback/credentials`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies },
    body: new URLSearchParams({ csrfToken, email: person.email, password: person.password, json: "true" }),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
  f.secret(session!.split(";")[0]!);
  expect(session).toMatch(/;\s*HttpOnly/i);
  expect(session).toMatch(/;\s*SameSite=Lax/i);
});

test("every server action, posted cross-origin with a supervisor's cookie: refused, nothing written", async () => {
  const before = await stateDigest(f);
  const args = { taskId: escalated.id, version: escalated.version, queue: "x", name: "evil-token", title: "evil", action: "requeue", tasks: [{ taskId: escalated.id, version: escalated.version }] };
  const statuses = new Map<number, number>();
  for (const origin of [EVIL, "null", `${f.server.url.replace("127.0.0.1", "localhost")}`]) {
    const answers = await Promise.all(actions.map((action) =>
      callAction(f.server.url, action, [args], { cookie: supervisorCookie, headers: { origin } })));
    for (const [i, answer] of answers.entries()) {
      expect(answer.result?.ok, `${actions[i]!.exportedName} from ${origin}: ${answer.status} ${answer.text.slice(0, 200)}`).not.toBe(true);
      expect(answer.status, actions[i]!.exportedName).toBe(403);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
  }
  expect(await stateDigest(f)).toEqual(before);
  console.log(`[cross-origin] ${actions.length} actions × 3 foreign origins refused: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  // The same call from our own origin does work: the refusals above are the origin check's.
  const requeue = actions.find((a) => a.exportedName === "requeueAction")!;
  const own = await callAction(f.server.url, requeue, [{ taskId: escalated.id, version: escalated.version }], { cookie: supervisorCookie });
  expect(own.result, own.text).toMatchObject({ ok: true });
});

test("every POST route with a cookie (no bearer token), from another origin: 401, nothing written; reads carry no CORS grant", async () => {
  const before = await stateDigest(f);
  const all = Object.values(endpoints as Record<string, Endpoint>);
  for (const endpoint of all.filter((e) => e.method === "POST")) {
    const path = endpoint.path.replace("{id}", escalated.id);
    for (const type of ["application/json", "text/plain", "application/x-www-form-urlencoded"]) {
      const res = await f.api.request("POST", path, {
        raw: JSON.stringify({ version: escalated.version, title: "evil", queue: "x", limit: 1, reason: "r", description: "d" }),
        headers: { cookie: supervisorCookie, origin: EVIL, "content-type": type },
      });
      expect(res.status, `${endpoint.operationId} ${type}: ${res.text}`).toBe(401);
      expect(expectErrorShape(res).code).toBe("unauthorized");
    }
  }
  expect(await stateDigest(f)).toEqual(before);
  for (const endpoint of all.filter((e) => e.method === "GET" && e.session && e.operationId !== "streamEvents")) {
    // A second path id (a question of the task) names one that does not exist: 404, still read with the cookie.
    const other = /\{(?!id\})[^}]+\}/.test(endpoint.path);
    const path = endpoint.path.replace("{id}", escalated.id).replace(/\{[^}]+\}/g, "999999");
    const res = await f.api.get(path, null, { cookie: supervisorCookie, origin: EVIL });
    expect(res.status, endpoint.operationId).toBe(other ? 404 : 200); // by design: the board reads with its cookie
    expect(res.headers.get("access-control-allow-origin"), endpoint.operationId).toBeNull();
    const preflight = await f.api.request("OPTIONS", path, { headers: { origin: EVIL, "access-control-request-method": "POST" } });
    expect(preflight.headers.get("access-control-allow-origin"), `${endpoint.operationId} preflight`).toBeNull();
  }
});

test("signing in needs next-auth's CSRF token: a cross-site login form gets no session", async () => {
  const person = await f.person("bilal@example.com", "staff");
  const res = await fetch(`${f.server.url}/api/auth/callback/credentials`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: EVIL },
    body: new URLSearchParams({ csrfToken: "forged", email: person.email, password: person.password, json: "true" }),
  });
  expect(res.headers.getSetCookie().filter((c) => c.startsWith("next-auth.session-token="))).toEqual([]);
  // With the real token the same credentials do sign in, so the refusal above is the CSRF check's.
  expect((await signInOverHttp(f.server.url, person.email, person.password)).session).not.toBeNull();
});

const SUBREQUEST = ["middleware", "proxy", "src/middleware", "middleware:middleware:middleware:middleware:middleware", "proxy:proxy:proxy:proxy:proxy", "src/proxy:src/proxy:src/proxy:src/proxy:src/proxy"];

test("x-middleware-subrequest skips neither the proxy nor any guard", async () => {
  const anonymousAction = actions.find((a) => a.exportedName === "requeueAction")!;
  for (const value of SUBREQUEST) {
    const headers = { "x-middleware-subrequest": value };
    // The proxy still runs: its refusal of a broken path, its CSP on pages and API.
    const broken = await f.api.get("/tasks/%E0%A4%A", null, headers);
    expect(broken.status, value).toBe(400);
    expect(expectErrorShape(broken).code).toBe("invalid_request");
    const page = await fetch(`${f.server.url}/login`, { headers, redirect: "manual" });
    expect(page.headers.get("content-security-policy"), value).toMatch(/script-src 'self' 'nonce-/);
    // And the guards, which do not live in the proxy, still refuse.
    const api = await f.api.post("/tasks", null, { title: "bypass" }, headers);
    expect(api.status, value).toBe(401);
    const inbox = await fetch(`${f.server.url}/inbox`, { headers, redirect: "manual" });
    expect(inbox.status, value).toBeGreaterThanOrEqual(300);
    expect(inbox.status, value).toBeLessThan(400);
    expect(inbox.headers.get("location"), value).toMatch(/\/login/);
    const action = await callAction(f.server.url, anonymousAction, [{ taskId: escalated.id, version: escalated.version }], { headers });
    expect(action.result, value).toMatchObject({ ok: false, error: { code: "unauthorized" } });
  }
});

test("without TRUST_PROXY a forged X-Forwarded-Proto earns no HSTS (it would pin a host that has no TLS)", async () => {
  const res = await fetch(`${f.server.url}/api/v1/health`, { headers: { "x-forwarded-proto": "https" } });
  expect(res.headers.get("strict-transport-security")).toBeNull();
  expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
});

test("no open redirect: sign-in's `next` and next-auth's callbackUrl stay on this site", async () => {
  for (const next of ["//evil.example", "/\\evil.example", "https://evil.example/", "/%2F%2Fevil.example", "javascript:alert(1)"]) {
    const res = await fetch(`${f.server.url}/login?next=${encodeURIComponent(next)}`, { headers: { cookie: supervisorCookie }, redirect: "manual" });
    const location = res.headers.get("location") ?? "";
    expect(res.status, next).toBeGreaterThanOrEqual(300);
    expect(new URL(location, f.server.url).origin, `${next} → ${location}`).toBe(f.server.url);
  }
  const person = await f.person("carol@example.com", "staff");
  const csrf = await fetch(`${f.server.url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${f.server.url}/api/auth/callback/credentials`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") },
    body: new URLSearchParams({ csrfToken, email: person.email, password: person.password, json: "true", callbackUrl: "https://evil.example/steal" }),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
  if (session) f.secret(session.split(";")[0]!);
  const { url } = (await res.json()) as { url: string };
  expect(new URL(url).origin, url).toBe(f.server.url);
});
