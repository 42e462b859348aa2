import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import * as auth from "@/lib/auth/passwords";
import { perform, type ActorRef } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { listAudit } from "./audit";
import { signInWithPassword } from "./password-sign-in";
import { createUser } from "./users";

// A person changes their own password (the current one first), and a supervisor issues a
// one-time reset link for someone who forgot theirs — no email needed: the supervisor hands the
// link over. The link works once, for a day, only its hash is stored, and using it sets the
// password and lifts the account's sign-in backoff.

let database: TestDatabase;
let sara: ActorRef;
let amal: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  sara = (await createUser(database.db, { email: "sara-r@example.com", name: "Sara", role: "supervisor", password: "sara-long-password" })).actor;
  amal = (await createUser(database.db, { email: "amal-r@example.com", name: "Amal", role: "staff", password: "amal-old-password" })).actor;
});
afterAll(async () => {
  await database?.close();
});

// The new module, looked up by name so this test fails (rather than not compiling) before it exists.
const reset = async () => (await import("./password-reset")) as unknown as {
  changeOwnPassword: Parameters<typeof perform>[0];
  issuePasswordReset: Parameters<typeof perform>[0];
  redeemPasswordReset: (db: TestDatabase["db"], token: string, password: string) => Promise<{ ok: boolean; value?: { email: string }; error?: { code: string; field?: string } }>;
};
const as = (op: Parameters<typeof perform>[0], input: unknown, actor: ActorRef, standing: "staff" | "supervisor" | "agent") =>
  perform(op as never, input as never, { db: database.db, actor, standing });
const signsIn = async (email: string, password: string) => (await signInWithPassword(database.db, email, password, "192.0.2.50").catch(() => null)) !== null;

test("a person changes their own password only with the current one; an agent token may not", async () => {
  const { changeOwnPassword } = await reset();
  expect(await as(changeOwnPassword, { current: "wrong-password", password: "amal-new-password" }, amal, "staff")).toMatchObject({ ok: false, error: { field: "current" } });
  expect(await as(changeOwnPassword, { current: "amal-old-password", password: "short" }, amal, "staff")).toMatchObject({ ok: false, error: { field: "password" } });
  expect(await as(changeOwnPassword, { current: "amal-old-password", password: "amal-old-password" }, amal, "staff")).toMatchObject({ ok: false, error: { field: "password", message: expect.stringContaining("differ from the current one") } });
  expect(await as(changeOwnPassword, { current: "amal-old-password", password: "amal-new-password" }, amal, "agent")).toMatchObject({ ok: false, error: { code: "forbidden" } });
  expect(await as(changeOwnPassword, { current: "amal-old-password", password: "amal-new-password" }, amal, "staff")).toMatchObject({ ok: true });
  expect(await signsIn("amal-r@example.com", "amal-new-password")).toBe(true);
  expect(await signsIn("amal-r@example.com", "amal-old-password")).toBe(false);
  expect((await listAudit(database.db, "person"))[0]).toMatchObject({ action: "password_changed", actor: { id: amal.id }, subject: { id: amal.id } });
});

test("a supervisor's reset link works once, is stored only as a hash, and staff may not issue one", async () => {
  const { issuePasswordReset, redeemPasswordReset } = await reset();
  expect(await as(issuePasswordReset, { actorId: sara.id }, amal, "staff")).toMatchObject({ ok: false, error: { code: "forbidden" } });
  const issued = await as(issuePasswordReset, { actorId: amal.id }, sara, "supervisor");
  expect(issued.ok).toBe(true);
  const { token, expiresAt } = (issued as { value: { token: string; expiresAt: Date } }).value;
  expect(token.length).toBeGreaterThanOrEqual(40);
  expect((expiresAt.getTime() - Date.now()) / 3_600_000).toBeCloseTo(24, 0);
  const dump = (await database.db.execute<{ row: string }>(sql`SELECT p::text AS row FROM password_resets p`)).map((r) => r.row).join("\n");
  expect(dump).not.toContain(token);
  expect(JSON.stringify(await listAudit(database.db, "person"))).not.toContain(token);

  expect(await redeemPasswordReset(database.db, token, "tiny")).toMatchObject({ ok: false, error: { field: "password" } });
  expect(await redeemPasswordReset(database.db, token, "amal-reset-password")).toMatchObject({ ok: true, value: { email: "amal-r@example.com" } });
  expect(await signsIn("amal-r@example.com", "amal-reset-password")).toBe(true);
  expect(await redeemPasswordReset(database.db, token, "amal-again-password")).toMatchObject({ ok: false, error: { code: "not_found" } });
  expect(await redeemPasswordReset(database.db, `${token.slice(0, -1)}x`, "amal-again-password")).toMatchObject({ ok: false });
  expect(await signsIn("amal-r@example.com", "amal-reset-password")).toBe(true);
});

test("an expired link, or one superseded by a newer link, does nothing", async () => {
  const { issuePasswordReset, redeemPasswordReset } = await reset();
  const first = (await as(issuePasswordReset, { actorId: amal.id }, sara, "supervisor")) as { value: { token: string } };
  const second = (await as(issuePasswordReset, { actorId: amal.id }, sara, "supervisor")) as { value: { token: string } };
  expect(await redeemPasswordReset(database.db, first.value.token, "amal-first-password")).toMatchObject({ ok: false });
  await database.db.execute(sql`UPDATE password_resets SET expires_at = now() - interval '1 second'`);
  expect(await redeemPasswordReset(database.db, second.value.token, "amal-second-password")).toMatchObject({ ok: false });
  expect(await signsIn("amal-r@example.com", "amal-reset-password")).toBe(true);
  void auth;
});

test("a stolen session's guesses at the current password are backed off like sign-in's; a right guess reveals nothing without the change", async () => {
  const { changeOwnPassword } = await reset();
  const victim = (await createUser(database.db, { email: "victim-r@example.com", name: "Victim", role: "staff", password: "victim-password" })).actor;
  // Equal new and current passwords are refused alike whether the guess is right or wrong.
  const sameWrong = await as(changeOwnPassword, { current: "guess-password", password: "guess-password" }, victim, "staff");
  const sameRight = await as(changeOwnPassword, { current: "victim-password", password: "victim-password" }, victim, "staff");
  expect(sameWrong).toMatchObject({ ok: false, error: { field: "password" } });
  expect(JSON.stringify(sameRight)).toBe(JSON.stringify(sameWrong).replaceAll("guess-password", "victim-password"));
  for (let i = 0; i < 5; i++) {
    expect(await as(changeOwnPassword, { current: `guess-${i}-password`, password: "taken-over-password" }, victim, "staff")).toMatchObject({ ok: false, error: { field: "current" } });
  }
  // The sixth is not evaluated at all, the right password too: the guesser learns nothing.
  expect(await as(changeOwnPassword, { current: "victim-password", password: "taken-over-password" }, victim, "staff")).toMatchObject({ ok: false, error: { code: "rate_limited" } });
  expect(await signsIn("victim-r@example.com", "victim-password")).toBe(false); // the account's key waits for sign-in too
});

test("a reset link for a supervisor is the CLI operator's to issue, never another supervisor's; audited with who issued it", async () => {
  const { issuePasswordReset } = await reset();
  const other = (await createUser(database.db, { email: "other-sup-r@example.com", name: "Other", role: "supervisor", password: "other-sup-password" })).actor;
  const before = (await listAudit(database.db, "person")).length;
  const refused = await as(issuePasswordReset, { actorId: other.id }, sara, "supervisor");
  expect(refused).toMatchObject({ ok: false, error: { code: "forbidden", message: expect.stringContaining("CLI") } });
  expect((await listAudit(database.db, "person")).length).toBe(before);
  const operator = (await import("@/lib/tasks/core/actors")).createActor;
  const cli = await operator(database.db, "user", "cli");
  const issued = await perform(issuePasswordReset as never, { actorId: other.id } as never, { db: database.db, actor: cli, standing: "operator" });
  expect(issued.ok).toBe(true);
  expect((await listAudit(database.db, "person"))[0]).toMatchObject({ action: "password_reset_issued", actor: { id: cli.id }, subject: { id: other.id } });
});
