import { afterAll, beforeAll, expect, test } from "vitest";
import { setPersonDisabled } from "@/lib/auth/people";
import { issuePasswordReset } from "@/lib/auth/password-reset";
import { createActor, perform } from "@/lib/tasks";
import { attackFixture, callAction, manifestActions, mustSignIn, signInOverHttp, type AttackFixture } from "@/test/attacks/helpers";

// A person's sessions end with their password (docs/security.md, "Sessions"): a change on
// /account ends every other session of theirs — a thief's too — while the one that changed it
// goes on; a reset link's use ends them all; so does being disabled, for good.

let f: AttackFixture;
let dana: { email: string; password: string; actorId: string };

beforeAll(async () => {
  f = await attackFixture();
  dana = await f.person("dana@example.com", "staff", "dana-old-password");
});
afterAll(async () => {
  await f?.close();
});

/** What a session endpoint answers the cookie: 200 while the session stands, 401 once it ended. */
const statusWith = async (cookie: string) => (await fetch(`${f.server.url}/api/v1/me/attention`, { headers: { cookie } })).status;

const supervisor = () => createActor(f.database.db, "user", "Sara");

test("a password change ends the person's other sessions and keeps the one it was made in", async () => {
  const here = await mustSignIn(f, dana.email, dana.password);
  const thief = await mustSignIn(f, dana.email, dana.password);
  expect([await statusWith(here), await statusWith(thief)]).toEqual([200, 200]);

  const action = manifestActions().find((a) => a.exportedName === "changeOwnPasswordAction")!;
  const changed = await callAction(f.server.url, action, [{ current: dana.password, password: "dana-new-password" }], { cookie: here });
  expect(changed.result).toMatchObject({ ok: true });
  const carried = changed.cookies.find((c) => c.startsWith("next-auth.session-token="));
  expect(carried).toBeDefined();

  expect(await statusWith(thief)).toBe(401);
  expect(await statusWith(here)).toBe(401); // the cookie as it was before the change
  expect(await statusWith(carried!)).toBe(200);
  expect((await signInOverHttp(f.server.url, dana.email, "dana-new-password")).session).not.toBeNull();
  dana.password = "dana-new-password";
});

test("using a reset link ends every session of the person", async () => {
  const before = await mustSignIn(f, dana.email, dana.password);
  const link = await perform(issuePasswordReset, { actorId: dana.actorId }, { db: f.database.db, actor: await supervisor(), standing: "supervisor" });
  if (!link.ok) throw new Error(link.error.message);
  const csrf = await fetch(`${f.server.url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const redeemed = await fetch(`${f.server.url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") },
    body: new URLSearchParams({ csrfToken, resetToken: link.value.token, password: "dana-reset-password", json: "true", callbackUrl: `${f.server.url}/` }),
  });
  const fresh = redeemed.headers.getSetCookie().map((c) => c.split(";")[0]!).find((c) => c.startsWith("next-auth.session-token=") && c.length > 30);
  expect(fresh).toBeDefined();
  expect(await statusWith(before)).toBe(401);
  expect(await statusWith(fresh!)).toBe(200);
  dana.password = "dana-reset-password";
});

test("a disabled person's sessions stay ended when they are enabled again", async () => {
  const before = await mustSignIn(f, dana.email, dana.password);
  const sara = await supervisor();
  const ctx = { db: f.database.db, actor: sara, standing: "supervisor" as const };
  expect((await perform(setPersonDisabled, { actorId: dana.actorId, disabled: true }, ctx)).ok).toBe(true);
  expect((await perform(setPersonDisabled, { actorId: dana.actorId, disabled: false }, ctx)).ok).toBe(true);
  expect(await statusWith(before)).toBe(401);
  expect(await statusWith(await mustSignIn(f, dana.email, dana.password))).toBe(200);
});
