import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { hashToken, revokeAgentToken } from "@/lib/auth/tokens";
import { createActor } from "@/lib/tasks";
import { expectErrorShape } from "@/test/http/helpers";
import { attackFixture, callAction, manifestActions, mustSignIn, type AttackFixture } from "./helpers";

// Bearer tokens under attack. (That the database holds no token is
// test/http/token-storage.test.ts; here, tokens made in the supervisors' page too.) The
// server trusts its proxy (TRUST_PROXY=1) so X-Forwarded-For stands for the address.

let f: AttackFixture;
beforeAll(async () => {
  f = await attackFixture({ TRUST_PROXY: "1" });
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

const from = (address: string) => ({ "x-forwarded-for": address });

test("a revoked token fails on the very next request, then every one after", async () => {
  const token = await f.token("to-revoke");
  expect((await f.api.get("/tasks", token, from("192.0.2.10"))).status).toBe(200);
  await revokeAgentToken(f.database.db, "to-revoke");
  for (let i = 0; i < 3; i++) {
    const res = await f.api.post("/claims", token, {}, from("192.0.2.10"));
    expect(res.status).toBe(401);
    expect(expectErrorShape(res).code).toBe("unauthorized");
  }
});

test("1,000 bad tokens from one address: throttled after the documented burst, other addresses and valid tokens unaffected", { timeout: 180_000 }, async () => {
  const good = await f.token("innocent");
  const attacker = from("203.0.113.7");
  const started = performance.now();
  const counts = { 401: 0, 429: 0, other: 0 };
  let goodDuring = 0;
  const guess = (i: number) =>
    i % 10 === 0 ? `not-even-a-token-${i}` : i % 10 === 1 ? `cb_${"x".repeat(200)}` : `cb_${randomBytes(32).toString("base64url")}`;
  for (let batch = 0; batch < 1000; batch += 25) {
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, j) => f.api.get("/tasks?limit=1", guess(batch + j), attacker)),
    );
    for (const res of answers) {
      if (res.status === 401 || res.status === 429) counts[res.status]++;
      else counts.other++;
      if (res.status === 429) {
        expect(expectErrorShape(res).code).toBe("rate_limited");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
    }
    // The real agent at the same address keeps working: failures are counted, not callers.
    if ((await f.api.get("/tasks?limit=1", good, attacker)).status === 200) goodDuring++;
  }
  const minutes = (performance.now() - started) / 60_000;
  console.log(`[tokens] 1000 bad tokens in ${(minutes * 60).toFixed(1)} s from one address: ${counts[401]} answered 401, ${counts[429]} throttled (429); the valid token got ${goodDuring}/40 answers`);
  expect(counts.other).toBe(0);
  // Defaults: a burst of 20, then 10 a minute.
  expect(counts[401]).toBeLessThanOrEqual(20 + Math.ceil(minutes * 10) + 1);
  expect(counts[429]).toBeGreaterThanOrEqual(1000 - 21 - Math.ceil(minutes * 10));
  expect(goodDuring).toBe(40);
  // Another address is not punished for this one.
  const other = await f.api.get("/tasks", `cb_${randomBytes(32).toString("base64url")}`, from("198.51.100.3"));
  expect(other.status).toBe(401);
});

test("the lookup is by SHA-256: a row holding only a token's hash admits it; change one hex digit and nothing does", async () => {
  const token = f.secret(`cb_${randomBytes(32).toString("base64url")}`);
  const actor = await createActor(f.database.db, "agent", "hand-made");
  await f.database.client`
    INSERT INTO agent_tokens (actor_id, name, prefix, token_hash, role)
    VALUES (${actor.id}, 'hand-made', ${token.slice(0, 9)}, ${hashToken(token)}, 'agent')`;
  expect((await f.api.get("/tasks", token, from("192.0.2.20"))).status).toBe(200);
  // The server never saw the token before: it can only have found the row by hashing what it got.
  const flipped = hashToken(token).replace(/^./, (c) => (c === "0" ? "1" : "0"));
  await f.database.client`UPDATE agent_tokens SET token_hash = ${flipped} WHERE name = 'hand-made'`;
  expect((await f.api.get("/tasks", token, from("192.0.2.20"))).status).toBe(401);
  // A near miss of a real token (last character changed) is just as unknown.
  const real = await f.token("near-miss");
  const near = real.slice(0, -1) + (real.endsWith("A") ? "B" : "A");
  expect((await f.api.get("/tasks", near, from("192.0.2.21"))).status).toBe(401);
});

test("a token made in the supervisors' page is shown once and stored only as its hash", async () => {
  const sara = await f.person("sara@example.com", "supervisor");
  const cookie = await mustSignIn(f, sara.email, sara.password);
  const create = manifestActions().find((a) => a.exportedName === "createTokenAction")!;
  const answer = await callAction(f.server.url, create, [{ name: "from-the-page" }], { cookie });
  const made = answer.result as { ok: true; value: { token: string } };
  expect(made.ok, answer.text.slice(0, 200)).toBe(true);
  const token = f.secret(made.value.token);
  expect((await f.api.get("/tasks", token, from("192.0.2.30"))).status).toBe(200);
  const rows = await f.database.client<{ row: string }[]>`
    SELECT t::text AS row FROM agent_tokens t UNION ALL SELECT a::text FROM actors a UNION ALL SELECT e::text FROM task_events e`;
  const dump = rows.map((r) => r.row).join("\n");
  expect(dump).not.toContain(token.slice(3));
  expect(dump).toContain(hashToken(token));
  // The list of tokens the page shows never carries a hash or a secret.
  const list = manifestActions().find((a) => a.exportedName === "agentTokensAction")!;
  const listed = await callAction(f.server.url, list, [{}], { cookie });
  expect(listed.result).toMatchObject({ ok: true });
  expect(listed.text).not.toContain(hashToken(token));
  expect(listed.text).not.toContain(token.slice(12));
});
