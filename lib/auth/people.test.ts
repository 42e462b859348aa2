import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { freshDatabase, type TestDatabase } from "@/test/db";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { databaseClock, SYSTEM_ACTOR, type Operation } from "@/lib/tasks";
import * as people from "./people";
import { listPeople } from "./people";
import { verifyPassword } from "./passwords";
import { admit, backoffPolicies } from "./sign-in-backoff";
import { findUserAccount } from "./users";

/**
 * People administration is engine operations now: each body run here in its own transaction
 * as the CLI's operator — like the functions these calls made before, without perform's input
 * validation (the actions' schemas are tested through them).
 */
const asOperator = <S extends z.ZodType, O>(op: Operation<S, O>) => (db: Db, input: z.input<S>) =>
  db.transaction((tx) => op.run(tx, input as z.infer<S>, { actor: SYSTEM_ACTOR, standing: "operator", clock: databaseClock }));
const invitePerson = asOperator(people.invitePerson);
const setPersonRole = asOperator(people.setPersonRole);
const setPersonDisabled = asOperator(people.setPersonDisabled);
const unlockSignIn = asOperator(people.unlockSignIn);

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

const invite = async (email: string, role: "staff" | "supervisor", password?: string) => {
  const result = await invitePerson(database.db, { email, name: email.split("@")[0]!, role, ...(password ? { password } : {}) });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
};

describe("people", () => {
  test("invite with a password set, or one generated and returned once (stored only as a hash)", async () => {
    const set = await invite("set@example.com", "staff", "a-long-password");
    expect(set.password).toBeNull();
    const generated = await invite("gen@example.com", "staff");
    expect(generated.password).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const [row] = await database.db.execute<{ password_hash: string }>(sql`SELECT password_hash FROM users WHERE email = 'gen@example.com'`);
    expect(row!.password_hash).not.toContain(generated.password!);
    expect(await verifyPassword(row!.password_hash, generated.password!)).toBe(true);
    const taken = await invitePerson(database.db, { email: "SET@example.com", name: "Again", role: "staff" });
    expect(taken).toMatchObject({ ok: false, error: { code: "invalid_request", field: "email" } });
  });

  test("role and disabled change; the last enabled supervisor can be neither demoted nor disabled", async () => {
    const only = await invite("boss@example.com", "supervisor");
    const staff = await invite("helper@example.com", "staff");
    const refusedDemote = await setPersonRole(database.db, { actorId: only.person.actor.id, role: "staff" });
    expect(refusedDemote).toMatchObject({ ok: false, error: { code: "invalid_request", message: expect.stringContaining("only supervisor") } });
    expect(await setPersonDisabled(database.db, { actorId: only.person.actor.id, disabled: true })).toMatchObject({ ok: false });
    expect((await findUserAccount(database.db, only.person.actor.id))).toMatchObject({ role: "supervisor", disabled: false });

    expect(await setPersonRole(database.db, { actorId: staff.person.actor.id, role: "supervisor" })).toMatchObject({ ok: true });
    expect(await setPersonRole(database.db, { actorId: only.person.actor.id, role: "staff" })).toMatchObject({ ok: true });
    expect(await setPersonDisabled(database.db, { actorId: staff.person.actor.id, disabled: true })).toMatchObject({ ok: false });
    expect(await setPersonDisabled(database.db, { actorId: only.person.actor.id, disabled: true })).toMatchObject({ ok: true });
    expect(await findUserAccount(database.db, only.person.actor.id)).toMatchObject({ role: "staff", disabled: true });
    expect(await setPersonDisabled(database.db, { actorId: only.person.actor.id, disabled: false })).toMatchObject({ ok: true });
    expect(await setPersonRole(database.db, { actorId: "00000000-0000-0000-0000-000000000001", role: "staff" })).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  test("two supervisors demoting each other at once: one wins, a supervisor is left", async () => {
    const a = await invite("a-sup@example.com", "supervisor");
    const b = await invite("b-sup@example.com", "supervisor");
    // Every other supervisor of this database steps down first, leaving exactly a and b.
    await database.db.execute(sql`UPDATE users SET role = 'staff' WHERE role = 'supervisor' AND actor_id NOT IN (${a.person.actor.id}::uuid, ${b.person.actor.id}::uuid)`);
    const other = database.connect({ max: 1 });
    const results = await Promise.all([
      setPersonRole(database.db, { actorId: a.person.actor.id, role: "staff" }),
      setPersonRole(other.db, { actorId: b.person.actor.id, role: "staff" }),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const [left] = await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM users WHERE role = 'supervisor' AND NOT disabled`);
    expect(left!.n).toBe(1);
  });

  test("a locked sign-in shows in the list and a supervisor's unlock clears it", async () => {
    const person = await invite("locked@example.com", "staff");
    const policy = backoffPolicies().account;
    for (let i = 0; i < policy.free; i++) await admit(database.db, "account", "locked@example.com", policy);
    const before = (await listPeople(database.db)).find((p) => p.email === "locked@example.com")!;
    expect(before).toMatchObject({ locked: true, failures: policy.free });
    expect(await unlockSignIn(database.db, { actorId: person.person.actor.id })).toMatchObject({ ok: true, value: { cleared: policy.free } });
    expect((await listPeople(database.db)).find((p) => p.email === "locked@example.com")).toMatchObject({ locked: false, failures: 0 });
  });
});
