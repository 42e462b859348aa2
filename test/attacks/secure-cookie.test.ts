import { afterAll, beforeAll, expect, test } from "vitest";
import { attackFixture, type AttackFixture } from "./helpers";

// The session cookie behind a TLS-terminating proxy (TRUST_PROXY=1, X-Forwarded-Proto:
// https): next-auth v4 marks cookies Secure only when NEXTAUTH_URL starts with https://, so a
// deployment whose NEXTAUTH_URL says http (or that derives it) handed browsers a session
// cookie they would also send over plain HTTP. Every cookie next-auth sets over TLS must be
// Secure; over plain HTTP (`next start` on a laptop) none can be, or sign-in would break.

let f: AttackFixture;
let person: { email: string; password: string };
beforeAll(async () => {
  f = await attackFixture({ TRUST_PROXY: "1" });
  person = await f.person("cookie@example.com", "staff");
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.server.stop();
  await f?.database.close();
});

/** next-auth's credentials flow; every Set-Cookie it answered, whole. */
async function signInCookies(headers: Record<string, string>): Promise<string[]> {
  const csrf = await fetch(`${f.server.url}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookies = csrf.headers.getSetCookie();
  const response = await fetch(`${f.server.url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies.map((c) => c.split(";")[0]).join("; ") },
    body: new URLSearchParams({ csrfToken, email: person.email, password: person.password, json: "true", callbackUrl: `${f.server.url}/` }),
  });
  const cookies = [...csrfCookies, ...response.headers.getSetCookie()];
  for (const cookie of cookies) f.secret(cookie.split(";")[0]!.split("=").slice(1).join("="));
  return cookies;
}

const secure = (cookie: string) => cookie.split(";").slice(1).some((part) => part.trim().toLowerCase() === "secure");
const named = (cookies: string[], fragment: string) => cookies.find((c) => c.split("=")[0]!.includes(fragment));

test("over TLS (a trusted proxy's X-Forwarded-Proto: https) every next-auth cookie is Secure", async () => {
  const cookies = await signInCookies({ "x-forwarded-proto": "https", "x-forwarded-host": new URL(f.server.url).host });
  const session = named(cookies, "session-token");
  expect(session, "a session cookie was set").toBeDefined();
  expect(cookies.filter((c) => !secure(c)).map((c) => c.split("=")[0])).toEqual([]);
});

test("over plain HTTP sign-in still works, and the cookies are not Secure", async () => {
  const cookies = await signInCookies({});
  const session = named(cookies, "session-token");
  expect(session, "a session cookie was set").toBeDefined();
  expect(secure(session!)).toBe(false);
});
