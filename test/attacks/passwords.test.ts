import { afterAll, beforeAll, expect, test } from "vitest";
import { clearAccountFailures } from "@/lib/auth/sign-in-backoff";
import { startServer } from "@/test/server";
import { attackFixture, signInOverHttp, type AttackFixture } from "./helpers";

// Passwords: stored with argon2id at OWASP's parameters or above; sign-ins slowed per account
// (or trusted device) and per address in PostgreSQL (lib/auth/sign-in-backoff.ts: 5 and 50 free,
// then a doubling wait from 15 s up to 15 minutes); one answer whatever was wrong.
// TRUST_PROXY=1: X-Forwarded-For is the address.

let f: AttackFixture;
beforeAll(async () => {
  f = await attackFixture({ TRUST_PROXY: "1" });
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

const signIn = (email: string, password: string, address: string) =>
  signInOverHttp(f.server.url, email, password, { "x-forwarded-for": address });
const errorOf = (url: string) => new URL(url, "http://x").searchParams.get("error");

test("stored as argon2id with at least 19 MiB and 2 passes; the password appears nowhere", async () => {
  const amal = await f.person("amal@example.com", "staff");
  const [row] = await f.database.client<{ hash: string; row: string }[]>`SELECT password_hash AS hash, u::text AS row FROM users u`;
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]{16,}\$[A-Za-z0-9+/]{32,}$/.exec(row!.hash);
  expect(match, row!.hash).not.toBeNull();
  const [, memory, passes, lanes] = match!.map(Number);
  expect(memory).toBeGreaterThanOrEqual(19_456);
  expect(passes).toBeGreaterThanOrEqual(2);
  expect(lanes).toBeGreaterThanOrEqual(1);
  expect(row!.row).not.toContain(amal.password);
  console.log(`[passwords] argon2id m=${memory} KiB, t=${passes}, p=${lanes}`);
});

test("one answer for a wrong password, an unknown email and a disabled account", async () => {
  const known = await f.person("known@example.com", "staff");
  const disabled = await f.person("off@example.com", "staff");
  await f.database.client`UPDATE users SET disabled = true WHERE email = ${disabled.email}`;
  const answers = [
    await signIn(known.email, "wrong-password-1", "192.0.2.1"),
    await signIn("nobody@example.com", "wrong-password-1", "192.0.2.2"),
    await signIn(disabled.email, disabled.password, "192.0.2.3"),
  ].map((a) => ({ status: a.status, url: a.url.replace(/^https?:\/\/[^/]+/, ""), session: a.session }));
  expect(answers[0]).toEqual({ status: 401, url: "/api/auth/error?error=CredentialsSignin&provider=credentials", session: null });
  expect(answers[1]).toEqual(answers[0]);
  expect(answers[2]).toEqual(answers[0]);
});

test("per account: the 6th failure in the window locks it, the right password too, from any address; known and unknown alike", { timeout: 120_000 }, async () => {
  const target = await f.person("target@example.com", "staff");
  const bystander = await f.person("bystander@example.com", "staff");
  const codes: (string | null)[] = [];
  for (let i = 0; i < 7; i++) codes.push(errorOf((await signIn(target.email, `guess-${i}`, `198.51.100.${i + 1}`)).url));
  expect(codes).toEqual([...Array(5).fill("CredentialsSignin"), "TooManyAttempts", "TooManyAttempts"]);
  const right = await signIn(target.email, target.password, "198.51.100.99");
  expect(right.session).toBeNull();
  expect(errorOf(right.url)).toBe("TooManyAttempts");
  expect(right.status).toBe(429); // not the 401 of a wrong password: refused before any check
  // The same addresses may still sign in to other accounts.
  expect((await signIn(bystander.email, bystander.password, "198.51.100.1")).session).not.toBeNull();
  // An unknown email locks the same way, so the lock does not tell which emails exist.
  const unknown: (string | null)[] = [];
  for (let i = 0; i < 6; i++) unknown.push(errorOf((await signIn("ghost@example.com", `guess-${i}`, `198.51.101.${i + 1}`)).url));
  expect(unknown).toEqual([...Array(5).fill("CredentialsSignin"), "TooManyAttempts"]);
  console.log(`[passwords] per account: ${codes.filter((c) => c === "CredentialsSignin").length} failures allowed, then locked (right password refused too)`);
});

test("per address: after 50 failures across accounts, that address is locked; another is not", { timeout: 180_000 }, async () => {
  const victim = await f.person("victim@example.com", "staff");
  const sprayer = "203.0.113.50";
  let refusedWith = "";
  let failures = 0;
  for (let i = 0; i < 60; i++) {
    const code = errorOf((await signIn(`spray-${i}@example.com`, "Winter2026!", sprayer)).url);
    if (code === "TooManyAttempts") {
      refusedWith = code;
      break;
    }
    failures++;
  }
  expect(failures).toBe(50);
  expect(refusedWith).toBe("TooManyAttempts");
  expect((await signIn(victim.email, victim.password, sprayer)).session).toBeNull();
  expect((await signIn(victim.email, victim.password, "192.0.2.77")).session).not.toBeNull();
  console.log(`[passwords] per address: ${failures} failures allowed from one address, then locked`);
});

test("without TRUST_PROXY the address is unknown: only the per-account window applies, so nobody can lock everyone out", { timeout: 180_000 }, async () => {
  // Its own server, without TRUST_PROXY, and a per-address limit of 3 to show it is not applied.
  const direct = await attackFixture({ LOGIN_FAILURES_PER_ADDRESS: "3" });
  try {
    const bystander = await direct.person("onlooker@example.com", "staff");
    for (let i = 0; i < 10; i++) {
      const answer = await signInOverHttp(direct.server.url, `anon-spray-${i}@example.com`, "Winter2026!", { "x-forwarded-for": "203.0.113.9" });
      expect(errorOf(answer.url)).toBe("CredentialsSignin");
    }
    expect((await signInOverHttp(direct.server.url, bystander.email, bystander.password)).session).not.toBeNull();
    direct.expectCleanLogs();
  } finally {
    await direct.close();
  }
});

test("the lock lives in PostgreSQL: a second server instance refuses the locked account, and a supervisor's unlock lifts it on both", { timeout: 120_000 }, async () => {
  const target = await f.person("roaming@example.com", "staff");
  for (let i = 0; i < 5; i++) expect(errorOf((await signIn(target.email, `guess-${i}`, `192.0.2.${i + 10}`)).url)).toBe("CredentialsSignin");
  const other = await startServer(f.database.url, { TRUST_PROXY: "1" });
  try {
    const there = await signInOverHttp(other.url, target.email, target.password, { "x-forwarded-for": "192.0.2.99" });
    expect(errorOf(there.url)).toBe("TooManyAttempts");
    expect(await clearAccountFailures(f.database.db, target.email.toUpperCase())).toBe(5);
    expect((await signInOverHttp(other.url, target.email, target.password, { "x-forwarded-for": "192.0.2.99" })).session).not.toBeNull();
    expect((await signIn(target.email, target.password, "192.0.2.98")).session).not.toBeNull();
  } finally {
    await other.stop();
  }
});

test("a browser that signed in before keeps signing in while a stranger's guesses make the account wait", { timeout: 120_000 }, async () => {
  const boss = await f.person("only-boss@example.com", "supervisor");
  const first = await signIn(boss.email, boss.password, "192.0.2.200");
  expect(first.session).not.toBeNull();
  const device = first.cookies.find((c) => c.startsWith("claimboard.device="));
  expect(device, first.cookies.join("; ")).toBeDefined();
  for (let i = 0; i < 7; i++) await signIn(boss.email, `guess-${i}`, `198.51.102.${i + 1}`);
  expect(errorOf((await signIn(boss.email, boss.password, "192.0.2.201")).url)).toBe("TooManyAttempts");
  const again = await signInOverHttp(f.server.url, boss.email, boss.password, { "x-forwarded-for": "192.0.2.200", cookie: device! });
  expect(again.session).not.toBeNull();
  console.log("[passwords] a trusted browser signed in while the account waited out a stranger's 7 guesses");
});
