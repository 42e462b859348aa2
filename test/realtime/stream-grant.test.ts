import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { revokeAgentToken } from "@/lib/auth/tokens";
import { attackFixture, mustSignIn, type AttackFixture } from "@/test/attacks/helpers";
import { openEventStream, type SseClient } from "@/test/sse";

// An open event stream is only as good as the grant it was opened under: a revoked token,
// a disabled or demoted person must not keep receiving. The server re-checks every
// STREAM_GRANT_CHECK_MS (30 s by default; 200 ms here) and ends the stream when it is gone.

let f: AttackFixture;
beforeAll(async () => {
  f = await attackFixture({ STREAM_GRANT_CHECK_MS: "200" });
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.server.stop();
  await f?.database.close();
});

const streamUrl = () => `${f.server.url}/api/v1/events`;

/** Whether the server ended the stream within `ms` (it never ends by itself otherwise). */
async function endsWithin(stream: SseClient, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    stream.ended.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return ended;
}

test("a token's stream ends once the token is revoked; another token's stays open", async () => {
  const token = await f.token("revoked-watcher", "observer");
  const kept = await f.token("kept-watcher", "observer");
  const doomed = await openEventStream(streamUrl(), { token });
  const control = await openEventStream(streamUrl(), { token: kept });

  expect(await revokeAgentToken(f.database.db, "revoked-watcher")).toBe(true);
  expect(await endsWithin(doomed, 10_000), "the revoked token's stream ended").toBe(true);
  expect(await endsWithin(control, 1_000), "the other token's stream ended too").toBe(false);
  control.close();
});

test("a person's stream ends once they are disabled, and once they are demoted", async () => {
  const staff = await f.person("stream-staff@example.com", "staff");
  const chief = await f.person("stream-chief@example.com", "supervisor");
  const staffStream = await openEventStream(streamUrl(), { headers: { cookie: await mustSignIn(f, staff.email, staff.password) } });
  const chiefCookie = await mustSignIn(f, chief.email, chief.password);
  const chiefStream = await openEventStream(streamUrl(), { headers: { cookie: chiefCookie } });

  await f.database.db.execute(sql`UPDATE users SET disabled = true WHERE email = ${staff.email}`);
  expect(await endsWithin(staffStream, 10_000), "the disabled person's stream ended").toBe(true);

  await f.database.db.execute(sql`UPDATE users SET role = 'staff' WHERE email = ${chief.email}`);
  expect(await endsWithin(chiefStream, 10_000), "the demoted supervisor's stream ended").toBe(true);
  // As staff they may still watch the board: a new stream opens under the new role.
  const again = await openEventStream(streamUrl(), { headers: { cookie: chiefCookie } });
  again.close();
});
