import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { z } from "zod";
import { perform, type ActorRef, type Operation, type Standing } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { listAudit } from "./audit";
import { invitePerson, setPersonDisabled, setPersonRole, unlockSignIn } from "./people";
import { admit, backoffPolicies } from "./sign-in-backoff";
import { createToken, revokeToken } from "./token-admin";
import { createUser } from "./users";

// People administration and tokens as engine operations: each leaves one audit record in its
// transaction, and anyone but a supervisor or the operator is refused with nothing written.

let database: TestDatabase;
let sara: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  sara = (await createUser(database.db, { email: "sara@example.com", name: "Sara", role: "supervisor", password: "sara-long-password" })).actor;
});
afterAll(async () => {
  await database?.close();
});

const as = <S extends z.ZodType, O>(op: Operation<S, O>, input: z.input<S>, standing: Standing = "supervisor") =>
  perform(op, input, { db: database.db, actor: sara, standing });
const must = async <T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>): Promise<T> => {
  const r = await result;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const auditCount = async () => Number((await database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM audit_events`))[0]!.n);
const newest = async (kind: "person" | "token") => (await listAudit(database.db, kind))[0];
const staffPerson = async (email: string) =>
  (await must(as(invitePerson, { email, name: email.split("@")[0]!, role: "staff", password: "a-long-password" }))).person;

describe("people administration leaves an audit record", () => {
  test("invite: person_invited, by whom, to whom, with the role (never the password)", async () => {
    const { person, password } = await must(as(invitePerson, { email: "amal@example.com", name: "Amal", role: "staff" }));
    const row = await newest("person");
    expect(row).toMatchObject({
      action: "person_invited", actor: { id: sara.id, name: "Sara" },
      subject: { kind: "person", id: person.actor.id, name: "Amal" }, detail: { email: "amal@example.com", role: "staff" },
    });
    expect(JSON.stringify(row)).not.toContain(password!);
    expect(row!.createdAt).toBeInstanceOf(Date);
  });

  test("role change: role_changed {from, to}; a change to the same role writes nothing", async () => {
    const person = await staffPerson("bilal@example.com");
    await must(as(setPersonRole, { actorId: person.actor.id, role: "supervisor" }));
    expect(await newest("person")).toMatchObject({ action: "role_changed", subject: { id: person.actor.id, name: "bilal" }, detail: { from: "staff", to: "supervisor" } });
    const before = await auditCount();
    await must(as(setPersonRole, { actorId: person.actor.id, role: "supervisor" }));
    expect(await auditCount()).toBe(before);
  });

  test("disable and enable: person_disabled, person_enabled; the operator's standing may too", async () => {
    const person = await staffPerson("chen@example.com");
    await must(as(setPersonDisabled, { actorId: person.actor.id, disabled: true }));
    expect(await newest("person")).toMatchObject({ action: "person_disabled", subject: { id: person.actor.id } });
    await must(as(setPersonDisabled, { actorId: person.actor.id, disabled: false }, "operator"));
    expect(await newest("person")).toMatchObject({ action: "person_enabled", subject: { id: person.actor.id } });
  });

  test("unlock: sign_in_unlocked with how many failures were cleared", async () => {
    const person = await staffPerson("dana@example.com");
    const policy = backoffPolicies().account;
    for (let i = 0; i < policy.free; i++) await admit(database.db, "account", "dana@example.com", policy);
    await must(as(unlockSignIn, { actorId: person.actor.id }));
    expect(await newest("person")).toMatchObject({ action: "sign_in_unlocked", subject: { id: person.actor.id }, detail: { cleared: policy.free } });
  });

  test("a refused change (the last supervisor) writes no record", async () => {
    await database.db.execute(sql`UPDATE users SET role = 'staff' WHERE actor_id <> ${sara.id}::uuid`);
    const before = await auditCount();
    expect(await as(setPersonRole, { actorId: sara.id, role: "staff" })).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(await auditCount()).toBe(before);
  });
});

describe("tokens leave an audit record", () => {
  test("create: token_created with role and prefix, never the secret; revoke: token_revoked", async () => {
    const created = await must(as(createToken, { name: "bot-1", role: "observer" }));
    const row = await newest("token");
    expect(row).toMatchObject({ action: "token_created", actor: { id: sara.id }, subject: { kind: "token", id: created.id, name: "bot-1" }, detail: { role: "observer", prefix: created.prefix } });
    expect(JSON.stringify(row)).not.toContain(created.token.slice(created.prefix.length));
    expect(await as(createToken, { name: "bot-1" })).toMatchObject({ ok: false, error: { code: "invalid_request", field: "name" } });

    await must(as(revokeToken, { name: "bot-1" }));
    expect(await newest("token")).toMatchObject({ action: "token_revoked", subject: { id: created.id, name: "bot-1" }, detail: { role: "observer" } });
    expect(await as(revokeToken, { name: "bot-1" })).toMatchObject({ ok: false, error: { code: "not_found", message: "No live token is named bot-1" } });
  });
});

describe("only a supervisor or the operator", () => {
  test("staff, agent and observer standings are refused with forbidden and nothing is written", async () => {
    const person = await staffPerson("erin@example.com");
    await must(as(createToken, { name: "keep-me" }));
    const tables = async () => database.db.execute(sql`
      SELECT (SELECT count(*) FROM audit_events) AS audit, (SELECT count(*) FROM users) AS users,
             (SELECT count(*) FROM agent_tokens WHERE revoked_at IS NULL) AS live, (SELECT string_agg(role::text || disabled::text, ',' ORDER BY actor_id) FROM users) AS roles`);
    const before = await tables();
    for (const standing of ["staff", "agent", "observer"] as const) {
      for (const [op, input] of [
        [invitePerson, { email: `x-${standing}@example.com`, name: "X", role: "staff" }],
        [setPersonRole, { actorId: person.actor.id, role: "supervisor" }],
        [setPersonDisabled, { actorId: person.actor.id, disabled: true }],
        [unlockSignIn, { actorId: person.actor.id }],
        [createToken, { name: `t-${standing}` }],
        [revokeToken, { name: "keep-me" }],
      ] as const) {
        expect(await as(op as Operation<z.ZodType, unknown>, input, standing), `${op.name} as ${standing}`).toMatchObject({ ok: false, error: { code: "forbidden" } });
      }
    }
    expect(await tables()).toEqual(before);
  });
});

test("audit_events is append-only: UPDATE, DELETE and TRUNCATE are refused by the database", async () => {
  for (const statement of ["UPDATE audit_events SET action = 'x'", "DELETE FROM audit_events", "TRUNCATE audit_events"]) {
    await expect(database.client.unsafe(statement), statement).rejects.toThrow(/append-only/);
  }
});
