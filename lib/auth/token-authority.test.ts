import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { perform, type ActorRef } from "@/lib/tasks";
import { currentGrant } from "@/lib/realtime/grant";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { listAgentTokens } from "./token-list";
import { createToken } from "./token-admin";
import { authenticateAndCount, authenticateToken } from "./tokens";
import { createUser, endSessions } from "./users";

// A token's authority ends: at its expiry (90 days for a new one unless its maker says
// otherwise, or never when they say so), and as soon as the person who made it is disabled
// or is no longer a supervisor (the role that could make it). Each token records its maker.

let database: TestDatabase;
let maker: ActorRef;
let other: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  maker = (await createUser(database.db, { email: "maker@example.com", name: "Maker", role: "supervisor", password: "maker-long-password" })).actor;
  other = (await createUser(database.db, { email: "other@example.com", name: "Other", role: "supervisor", password: "other-long-password" })).actor;
});
afterAll(async () => {
  await database?.close();
});

const limit = { capacity: 100, perSecond: 10 };
const make = async (name: string, extra: Record<string, unknown> = {}, by = maker) => {
  const result = await perform(createToken, { name, ...extra }, { db: database.db, actor: by, standing: "supervisor" });
  if (!result.ok) throw new Error(result.error.message);
  return result.value as typeof result.value & { expiresAt?: Date | null };
};
const works = async (token: string) => {
  const direct = await authenticateToken(database.db, token);
  const counted = await authenticateAndCount(database.db, token, limit);
  expect(Boolean(counted)).toBe(Boolean(direct));
  return direct !== null;
};
const setMaker = (patch: "disable" | "enable" | "demote" | "promote") =>
  database.db.execute(
    patch === "disable" ? sql`UPDATE users SET disabled = true WHERE actor_id = ${maker.id}::uuid`
    : patch === "enable" ? sql`UPDATE users SET disabled = false WHERE actor_id = ${maker.id}::uuid`
    : patch === "demote" ? sql`UPDATE users SET role = 'staff' WHERE actor_id = ${maker.id}::uuid`
    : sql`UPDATE users SET role = 'supervisor' WHERE actor_id = ${maker.id}::uuid`,
  );

test("a new token records its maker and expires in 90 days by default; the list shows both", async () => {
  const created = await make("default-expiry");
  const days = (created.expiresAt!.getTime() - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(89.9);
  expect(days).toBeLessThan(90.1);
  const row = (await listAgentTokens(database.db)).find((t) => t.name === "default-expiry") as Record<string, unknown> | undefined;
  expect(row).toMatchObject({ createdBy: { id: maker.id, name: "Maker" } });
  expect(row!.expiresAt).toEqual(created.expiresAt);
  expect(await works(created.token)).toBe(true);
});

test("past its expiry a token stops working, on every path; a token made to never expire does not", async () => {
  const short = await make("short-lived", { expiresInDays: 1 });
  expect(await works(short.token)).toBe(true);
  await database.db.execute(sql`UPDATE agent_tokens SET expires_at = now() - interval '1 second' WHERE name = 'short-lived'`);
  expect(await works(short.token)).toBe(false);
  const forever = await make("forever", { expiresInDays: null });
  expect(forever.expiresAt).toBeNull();
  expect(await works(forever.token)).toBe(true);
});

test("a token stops working when its maker is disabled or demoted, and a stream's grant with it", async () => {
  const created = await make("makers-agent", { expiresInDays: null });
  const byOther = await make("others-agent", { expiresInDays: null }, other);
  const principal = (await authenticateToken(database.db, created.token))!;
  expect(await currentGrant(database.db, principal)).not.toBeNull();
  await setMaker("disable");
  expect(await works(created.token)).toBe(false);
  expect(await currentGrant(database.db, principal)).toBeNull();
  expect(await works(byOther.token)).toBe(true);
  await setMaker("enable");
  expect(await works(created.token)).toBe(true);
  await setMaker("demote");
  expect(await works(created.token)).toBe(false);
  expect(await currentGrant(database.db, principal)).toBeNull();
  await setMaker("promote");
  expect(await works(created.token)).toBe(true);
});

test("an expiry out of range is refused naming the field", async () => {
  for (const expiresInDays of [0, -1, 3651, 1.5, "30"]) {
    const result = await perform(createToken, { name: `bad-${String(expiresInDays).replace(/\W/g, "_")}`, expiresInDays } as never, { db: database.db, actor: maker, standing: "supervisor" });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_request", field: "expiresInDays" } });
  }
});

test("a person's open stream ends with their sessions: a password change, reset or disable moves the grant", async () => {
  const principal = { tokenId: `session:${other.id}`, role: "observer" as const, actor: other };
  const before = await currentGrant(database.db, principal);
  expect(before).not.toBeNull();
  await endSessions(database.db, other.id);
  const after = await currentGrant(database.db, principal);
  expect(after).not.toBeNull(); // still enabled: the stream reconnects with the session that goes on
  expect(after).not.toBe(before);
});
