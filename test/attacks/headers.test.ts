import { afterAll, beforeAll, expect, test } from "vitest";
import { attackFixture, mustSignIn, type AttackFixture } from "./helpers";

// The security headers of every kind of answer — pages (signed out, signed in, a
// supervisor's), JSON, errors, the proxy's own refusal, the SSE stream and the build's
// static files — against the policy written out below. The server trusts its proxy
// (TRUST_PROXY=1), so X-Forwarded-Proto: https stands for "behind TLS".

const ALWAYS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
  "cross-origin-opener-policy": "same-origin",
};
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const PAGE_CSP = (tls: boolean) =>
  "default-src 'self'; script-src 'self' 'nonce-<nonce>' 'strict-dynamic'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' blob: data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; " +
  `form-action 'self'; frame-ancestors 'none'${tls ? "; upgrade-insecure-requests" : ""}`;
const HSTS = "max-age=63072000; includeSubDomains";

let f: AttackFixture;
let staff: string;
let supervisor: string;
let token: string;

beforeAll(async () => {
  f = await attackFixture({ TRUST_PROXY: "1" });
  const amal = await f.person("amal@example.com", "staff");
  const sara = await f.person("sara@example.com", "supervisor");
  staff = await mustSignIn(f, amal.email, amal.password);
  supervisor = await mustSignIn(f, sara.email, sara.password);
  token = await f.token("headers");
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

const SECURITY = [...Object.keys(ALWAYS), "content-security-policy", "strict-transport-security"];

/** The security headers of one answer, the page nonce replaced by a placeholder. */
async function headersOf(path: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(f.server.url + path, { headers, redirect: "manual", signal: abort.signal });
  const body = response.headers.get("content-type")?.startsWith("text/event-stream") ? "" : await response.text();
  abort.abort();
  const csp = response.headers.get("content-security-policy") ?? "";
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1] ?? null;
  const picked = Object.fromEntries(SECURITY.flatMap((k) => (response.headers.has(k) ? [[k, response.headers.get(k)!.replace(nonce ?? "\0", "<nonce>")]] : [])));
  return { status: response.status, headers: picked, nonce, body };
}

const CASES: [name: string, path: string, who: "anonymous" | "staff" | "supervisor" | "token", kind: "page" | "api" | "static"][] = [
  ["sign-in page", "/login", "anonymous", "page"],
  ["board", "/", "staff", "page"],
  ["redirect to sign-in", "/inbox", "anonymous", "page"],
  ["supervisor's inbox", "/inbox", "supervisor", "page"],
  ["API reference", "/api-reference", "staff", "page"],
  ["health", "/api/v1/health", "anonymous", "api"],
  ["task list", "/api/v1/tasks", "token", "api"],
  ["401", "/api/v1/tasks", "anonymous", "api"],
  ["404", "/api/v1/nothing-here", "token", "api"],
  ["proxy's 400", "/api/v1/tasks/%E0%A4%A", "token", "api"],
  ["event stream", "/api/v1/events", "token", "api"],
  ["event stream (cookie)", "/api/v1/events", "staff", "api"],
  ["next-auth", "/api/auth/csrf", "anonymous", "api"],
  ["MCP endpoint (405 to a GET)", "/api/mcp", "token", "api"],
];

test.each([false, true])("every kind of answer carries the policy (behind TLS: %s)", async (tls) => {
  const who = { anonymous: {}, staff: { cookie: staff }, supervisor: { cookie: supervisor }, token: { authorization: `Bearer ${token}` } };
  const forwarded: Record<string, string> = tls ? { "x-forwarded-proto": "https" } : {};
  const seen = new Map<string, number>();
  for (const [name, path, caller, kind] of CASES) {
    const got = await headersOf(path, { ...who[caller], ...forwarded });
    seen.set(String(got.status), (seen.get(String(got.status)) ?? 0) + 1);
    const expected = {
      ...ALWAYS,
      "content-security-policy": kind === "page" ? PAGE_CSP(tls) : API_CSP,
      ...(tls ? { "strict-transport-security": HSTS } : {}),
    };
    expect(got.headers, `${name} (${got.status})`).toEqual(expected);
    expect(got.headers["content-security-policy"]).not.toContain("unsafe-eval");
  }
  // The build's static files: the fixed headers (nosniff matters most for scripts), no CSP.
  const page = await headersOf("/login");
  const script = /<script[^>]+src="(\/_next\/static\/[^"]+\.js)"/.exec(page.body)?.[1];
  expect(script, "a script of the sign-in page").toBeDefined();
  expect((await headersOf(script!, forwarded)).headers).toMatchObject(ALWAYS);
  console.log(`[headers] ${CASES.length + 1} answers (statuses ${JSON.stringify(Object.fromEntries(seen))}), TLS ${tls}: all match`);
});

test("a page's scripts all carry its own nonce, fresh on every response; no script runs without one", async () => {
  const nonces = new Set<string>();
  for (const cookie of [staff, staff, supervisor]) {
    const page = await headersOf("/", { cookie });
    expect(page.status).toBe(200);
    expect(page.nonce).toMatch(/^[A-Za-z0-9+/=]{16,}$/);
    nonces.add(page.nonce!);
    const scripts = [...page.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${page.nonce}"`);
  }
  expect(nonces.size).toBe(3);
});
