import { afterAll, beforeAll, expect, test } from "vitest";
import { listAudit } from "@/lib/auth/audit";
import { redeemPasswordReset } from "@/lib/auth/password-reset";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";

// `npm run cli -- user reset-link`: what the sign-in page tells a person (or a supervisor with
// nobody to ask) who forgot their password. The link it prints works once. A supervisor's link is
// issued only here (no other supervisor may), audited as the CLI's.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
  const made = await runCli(["user", "create", "--email", "Dana@example.com", "--name", "Dana", "--role", "supervisor", "--password", "old-password-1"], database.url);
  if (made.code !== 0) throw new Error(made.stderr);
});
afterAll(async () => {
  await database?.close();
});

test("prints a one-time reset link for the person; an unknown email is one line and exit 1", async () => {
  const ran = await runCli(["user", "reset-link", "--email", "dana@example.com", "--base-url", "https://board.example/"], database.url);
  expect(ran.code, ran.stderr).toBe(0);
  const lines = ran.stdout.trim().split("\n");
  expect(lines[0]).toMatch(/^reset link for Dana \(works once, for 24 hours/);
  const token = /^https:\/\/board\.example\/login#reset=([A-Za-z0-9_-]{43})$/.exec(lines[1]!)?.[1];
  expect(token, lines[1]).toBeDefined();
  expect((await redeemPasswordReset(database.db, token!, "new-password-1")).ok).toBe(true);
  expect((await redeemPasswordReset(database.db, token!, "new-password-2")).ok).toBe(false);
  expect((await listAudit(database.db, "person")).find((a) => a.action === "password_reset_issued")).toMatchObject({ actor: { name: "cli" }, subject: { name: "Dana" } });

  const unknown = await runCli(["user", "reset-link", "--email", "nobody@example.com"], database.url);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr.trim()).toBe("error: no person signs in with nobody@example.com");
});
