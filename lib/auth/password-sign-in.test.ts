import { afterAll, beforeAll, expect, test } from "vitest";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { TOO_MANY_ATTEMPTS } from "./login-throttle";
import { signInWithPassword } from "./password-sign-in";
import { backoffPolicies } from "./sign-in-backoff";
import { createUser } from "./users";

// The count of an account's failed sign-ins and the decision to evaluate one more password
// are one atomic statement: 200 wrong guesses for one account fired at once, over 20
// independent connections, get at most the allowed number of passwords evaluated. (Before,
// every guess read the count, found it under the limit, and went on to argon2.)

let database: TestDatabase;
beforeAll(async () => {
  process.env.NEXTAUTH_SECRET ??= "device-cookie-test-secret";
  database = await freshDatabase();
  await createUser(database.db, { email: "boss@example.com", name: "Boss", role: "supervisor", password: "the-boss-password" });
});
afterAll(async () => {
  await database?.close();
});

test("200 concurrent wrong guesses for one account evaluate at most the allowed number of passwords", { timeout: 120_000 }, async () => {
  const pool = database.connect({ max: 20 });
  const allowed = backoffPolicies().account.free;
  const outcomes = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      signInWithPassword(pool.db, "boss@example.com", `guess-${i}`, `198.51.100.${i % 250}`).then(
        (result) => (result === null ? "evaluated" : "signed-in"),
        (error: Error) => (error.message === TOO_MANY_ATTEMPTS ? "refused" : `error: ${error.message}`),
      ),
    ),
  );
  const evaluated = outcomes.filter((o) => o === "evaluated").length;
  console.log(`[sign-in] 200 concurrent guesses: ${evaluated} evaluated, ${outcomes.filter((o) => o === "refused").length} refused`);
  expect(outcomes.filter((o) => o !== "evaluated" && o !== "refused")).toEqual([]);
  expect(evaluated).toBeGreaterThan(0);
  expect(evaluated).toBeLessThanOrEqual(allowed);
});

const attempt = (email: string, password: string, address: string, device?: string) =>
  signInWithPassword(database.db, email, password, address, device).then(
    (result) => result,
    (error: Error) => (error.message === TOO_MANY_ATTEMPTS ? ("refused" as const) : Promise.reject(error)),
  );

test("a stranger's guesses cannot keep the only supervisor out: a browser that signed in before is counted on its own", { timeout: 60_000 }, async () => {
  await createUser(database.db, { email: "only@example.com", name: "Only", role: "supervisor", password: "only-password" });
  const first = await attempt("only@example.com", "only-password", "192.0.2.10");
  expect(first).toMatchObject({ email: "only@example.com" });
  const device = (first as { device?: string }).device;
  expect(typeof device).toBe("string");
  // The attacker, from many addresses, pushes the account far into its backoff.
  for (let i = 0; i < 12; i++) await attempt("only@example.com", `guess-${i}`, `203.0.113.${i}`);
  expect(await attempt("only@example.com", "only-password", "192.0.2.11")).toBe("refused");
  // The supervisor's own browser still gets in, with the right password, at once.
  expect(await attempt("only@example.com", "only-password", "192.0.2.10", device)).toMatchObject({ email: "only@example.com" });
  // The cookie is worth nothing for another account, nor forged.
  await createUser(database.db, { email: "other@example.com", name: "Other", role: "staff", password: "other-password" });
  for (let i = 0; i < 6; i++) await attempt("other@example.com", `guess-${i}`, `203.0.114.${i}`);
  expect(await attempt("other@example.com", "other-password", "192.0.2.10", device)).toBe("refused");
  expect(await attempt("only@example.com", "only-password", "192.0.2.10", `${device!.slice(0, -2)}xx`)).toBe("refused");
});

test("the delay is bounded: after it, one more guess is evaluated, and the next delay is longer", { timeout: 60_000 }, async () => {
  process.env.LOGIN_BACKOFF_BASE_SECONDS = "1";
  process.env.LOGIN_BACKOFF_MAX_SECONDS = "60";
  try {
    const outcomes: unknown[] = [];
    for (let i = 0; i < 6; i++) outcomes.push(await attempt("slow@example.com", `guess-${i}`, `198.18.0.${i}`));
    expect(outcomes).toEqual([null, null, null, null, null, "refused"]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await attempt("slow@example.com", "guess-6", "198.18.0.6")).toBeNull(); // evaluated (wrong)
    expect(await attempt("slow@example.com", "guess-7", "198.18.0.7")).toBe("refused");
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await attempt("slow@example.com", "guess-8", "198.18.0.8")).toBe("refused"); // 2 s now
  } finally {
    delete process.env.LOGIN_BACKOFF_BASE_SECONDS;
    delete process.env.LOGIN_BACKOFF_MAX_SECONDS;
  }
});
