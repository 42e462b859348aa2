import { afterAll, beforeAll, expect, test } from "vitest";
import { attackFixture, callAction, manifestActions, mustSignIn, type AttackFixture } from "./helpers";

// Server actions are POST endpoints like the API's and share its rate limit: one bucket per
// signed-in person (RATE_LIMIT_BURST, RATE_LIMIT_PER_SECOND; 8 and 1/s here), so one browser
// — or a script with its cookie — cannot flood the database through the pages.

let f: AttackFixture;
beforeAll(async () => {
  f = await attackFixture({ RATE_LIMIT_BURST: "8", RATE_LIMIT_PER_SECOND: "1" });
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

test("a person's server actions past the burst answer rate_limited with a wait; another person is not slowed", async () => {
  const sara = await f.person("rate-sara@example.com", "supervisor");
  const omar = await f.person("rate-omar@example.com", "supervisor");
  const cookie = await mustSignIn(f, sara.email, sara.password);
  const other = await mustSignIn(f, omar.email, omar.password);
  const list = manifestActions().find((a) => a.exportedName === "agentTokensAction")!;
  const codes: string[] = [];
  for (let i = 0; i < 20; i++) {
    const answer = await callAction(f.server.url, list, [{}], { cookie });
    codes.push(answer.result?.ok ? "ok" : (answer.result?.error?.code ?? `status ${answer.status}`));
  }
  console.log(`[actions] 20 calls, burst 8: ${codes.filter((c) => c === "ok").length} ok, ${codes.filter((c) => c === "rate_limited").length} rate_limited`);
  expect(codes.filter((c) => c === "rate_limited").length).toBeGreaterThanOrEqual(5);
  expect(codes.every((c) => c === "ok" || c === "rate_limited")).toBe(true);
  expect((await callAction(f.server.url, list, [{}], { cookie: other })).result).toMatchObject({ ok: true });
});
