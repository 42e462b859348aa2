import { afterAll, beforeAll, expect, test } from "vitest";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { TOO_MANY_ATTEMPTS } from "./login-throttle";
import { signInWithPassword } from "./password-sign-in";
import { HASHING_BUSY, hashingSlots, verifyPassword } from "./passwords";
import { createUser } from "./users";

// Checking passwords is bounded per instance (passwords.ts): an unauthenticated flood of sign-ins
// for many accounts hashes at most hashingSlots() passwords at once; the excess is shed before
// any argon2 work (refused as too many attempts, its backoff charge given back) instead of
// queueing behind the others and slowing every sign-in and request.

let database: TestDatabase;
beforeAll(async () => {
  process.env.NEXTAUTH_SECRET ??= "hashing-test-secret";
  database = await freshDatabase();
  await createUser(database.db, { email: "target@example.com", name: "Target", role: "staff", password: "the-target-password" });
});
afterAll(async () => {
  await database?.close();
});

test("verifyPassword beyond the slots is refused at once, never queued", async () => {
  const encoded = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$2xXTo52JUtMG5ep7MHdXT5kNaU1vJJXmq5FuF8MHrJU";
  const many = hashingSlots() * 4;
  const outcomes = await Promise.all(Array.from({ length: many }, () => verifyPassword(encoded, "guess").then(() => "hashed", (e: Error) => e.message)));
  expect(outcomes.filter((o) => o === "hashed").length).toBeLessThanOrEqual(hashingSlots());
  expect(outcomes.filter((o) => o === HASHING_BUSY).length).toBeGreaterThanOrEqual(many - hashingSlots());
  expect(outcomes.filter((o) => o !== "hashed" && o !== HASHING_BUSY)).toEqual([]);
});

test("a flood of sign-ins for unknown accounts is shed before hashing; the real person signs in after it", { timeout: 60_000 }, async () => {
  const pool = database.connect({ max: 20 });
  const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) =>
    signInWithPassword(pool.db, `nobody-${i}@example.com`, "guess", "direct").then(() => "evaluated", (e: Error) => e.message)));
  expect(outcomes.filter((o) => o === TOO_MANY_ATTEMPTS).length).toBeGreaterThan(0);
  expect(outcomes.filter((o) => o !== "evaluated" && o !== TOO_MANY_ATTEMPTS)).toEqual([]);
  expect(await signInWithPassword(database.db, "target@example.com", "the-target-password", "direct")).toMatchObject({ email: "target@example.com" });
});
