import { afterAll, beforeAll, expect, test } from "vitest";
import { setPersonDisabled, setPersonRole } from "@/lib/auth/people";
import { createToken, revokeToken } from "@/lib/auth/token-admin";
import { perform, type ActorRef } from "@/lib/tasks";
import { attackFixture, mustSignIn, type AttackFixture } from "@/test/attacks/helpers";
import { openEventStream, type SseClient } from "@/test/sse";

// A revoke, a disable or a demotion ends the streams it takes the grant from at once — not at
// the next periodic re-check (STREAM_GRANT_CHECK_MS, left at its 30 s here): the audited
// operation's own transaction notifies every server's hub, which re-checks its streams then.

let f: AttackFixture;
let boss: ActorRef;
beforeAll(async () => {
  f = await attackFixture();
  const person = await f.person("grant-boss@example.com", "supervisor");
  boss = (await f.database.db.query.actors.findFirst({ where: (t, { eq }) => eq(t.id, person.actorId) }))!;
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.server.stop();
  await f?.database.close();
});

const streamUrl = () => `${f.server.url}/api/v1/events`;
const AT_ONCE_MS = 5_000;
const as = <I>(op: Parameters<typeof perform>[0], input: I, actor: ActorRef = boss) =>
  perform(op as never, input as never, { db: f.database.db, actor, standing: "supervisor" });

async function endsWithin(stream: SseClient, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    stream.ended.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return ended;
}

test("revoking a token on the agents page ends its open stream at once; another token's stays", async () => {
  const doomed = await openEventStream(streamUrl(), { token: await f.token("at-once-doomed", "observer") });
  const control = await openEventStream(streamUrl(), { token: await f.token("at-once-kept", "observer") });
  const started = Date.now();
  expect(await as(revokeToken, { name: "at-once-doomed" })).toMatchObject({ ok: true });
  expect(await endsWithin(doomed, AT_ONCE_MS), "the revoked token's stream ended at once").toBe(true);
  console.log(`[streams] revoked token's stream ended ${Date.now() - started} ms after the revoke`);
  expect(await endsWithin(control, 500)).toBe(false);
  control.close();
});

test("disabling or demoting a person ends their streams at once, and the streams of tokens they made", async () => {
  const staff = await f.person("at-once-staff@example.com", "staff");
  const chief = await f.person("at-once-chief@example.com", "supervisor");
  const chiefActor = (await f.database.db.query.actors.findFirst({ where: (t, { eq }) => eq(t.id, chief.actorId) }))!;
  const made = await as(createToken, { name: "made-by-chief", role: "observer" }, chiefActor);
  if (!made.ok) throw new Error(made.error.message);
  const staffStream = await openEventStream(streamUrl(), { headers: { cookie: await mustSignIn(f, staff.email, staff.password) } });
  const chiefStream = await openEventStream(streamUrl(), { headers: { cookie: await mustSignIn(f, chief.email, chief.password) } });
  const tokenStream = await openEventStream(streamUrl(), { token: f.secret((made.value as { token: string }).token) });

  expect(await as(setPersonDisabled, { actorId: staff.actorId, disabled: true })).toMatchObject({ ok: true });
  expect(await endsWithin(staffStream, AT_ONCE_MS), "the disabled person's stream ended at once").toBe(true);
  expect(await as(setPersonRole, { actorId: chief.actorId, role: "staff" })).toMatchObject({ ok: true });
  expect(await endsWithin(chiefStream, AT_ONCE_MS), "the demoted supervisor's stream ended at once").toBe(true);
  expect(await endsWithin(tokenStream, AT_ONCE_MS), "the stream of a token the demoted supervisor made ended at once").toBe(true);
});
