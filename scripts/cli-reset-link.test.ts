import { afterAll, beforeAll, expect, test } from "vitest";
import { createUser } from "@/lib/auth/users";
import { listAudit } from "@/lib/auth/audit";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";

// `user reset-link`: the operator issues a supervisor's reset link (no other supervisor may),
// printed once, audited as the CLI's.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
  await createUser(database.db, { email: "boss@example.com", name: "Boss", role: "supervisor", password: "boss-long-password" });
});
afterAll(async () => {
  await database?.close();
});

test("the operator issues a supervisor's reset link; an unknown email is one line, exit 1", { timeout: 240_000 }, async () => {
  const issued = await runCli(["user", "reset-link", "--email", "Boss@example.com"], database.url);
  expect(issued.code, issued.stderr).toBe(0);
  const lines = issued.stdout.trim().split("\n");
  expect(lines[0]).toMatch(/^a reset link for Boss, good once until \d{4}-/);
  expect(lines[1]).toMatch(/^\/login#reset=[A-Za-z0-9_-]{40,}$/);
  expect((await listAudit(database.db, "person"))[0]).toMatchObject({ action: "password_reset_issued", actor: { name: "cli" }, subject: { name: "Boss" } });
  const unknown = await runCli(["user", "reset-link", "--email", "nobody@example.com"], database.url);
  expect([unknown.code, unknown.stderr.trim()]).toEqual([1, "error: no person signs in as nobody@example.com"]);
});
