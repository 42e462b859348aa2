import { afterAll, beforeAll, expect, test } from "vitest";
import { attackFixture, mustSignIn, type AttackFixture } from "@/test/attacks/helpers";
import { openEventStream, type SseClient } from "@/test/sse";

// Open event streams per caller (a token, or a signed-in person) are capped: each holds a
// subscriber and its replay, so one caller opening hundreds would starve the rest.
// STREAMS_PER_CALLER=2 here to keep the test small.

let f: AttackFixture;
beforeAll(async () => {
  f = await attackFixture({ STREAMS_PER_CALLER: "2" });
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.server.stop();
  await f?.database.close();
});

const streamUrl = () => `${f.server.url}/api/v1/events?after=0:0`;

async function refusal(headers: Record<string, string>) {
  const response = await fetch(streamUrl(), { headers: { accept: "text/event-stream", ...headers } });
  if (response.status === 200) {
    await response.body?.cancel(); // a stream, not a refusal: never ends by itself
    return { status: 200, retryAfter: null, body: null };
  }
  const body = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
}

async function openUpTo(headers: Record<string, string>, token?: string): Promise<SseClient[]> {
  const streams = [];
  for (let i = 0; i < 2; i++) streams.push(await openEventStream(streamUrl(), { token, headers }));
  return streams;
}

test("a token's third open stream is refused with 429 rate_limited naming the cap, and a closed one frees its place", async () => {
  const token = await f.token("watcher", "observer");
  const other = await f.token("other-watcher", "observer");
  const streams = await openUpTo({}, token);

  const third = await refusal({ authorization: `Bearer ${token}` });
  expect(third.status).toBe(429);
  expect(third.body?.error?.code).toBe("rate_limited");
  expect(third.body?.error?.message).toMatch(/\b2\b/);
  expect(Number(third.retryAfter)).toBeGreaterThanOrEqual(1);

  // Another caller is not affected.
  const others = await openEventStream(streamUrl(), { token: other });
  others.close();

  streams[0]!.close();
  await streams[0]!.ended;
  // The server sees the client go when the connection ends: poll, bounded.
  let reopened: SseClient | null = null;
  for (let i = 0; i < 50 && !reopened; i++) {
    reopened = await openEventStream(streamUrl(), { token }).catch(() => null);
    if (!reopened) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(reopened, "a stream opens again once one was closed").not.toBeNull();
  reopened!.close();
  streams[1]!.close();
});

test("a signed-in person's streams are capped the same way", async () => {
  const person = await f.person("cap@example.com", "staff");
  const cookie = await mustSignIn(f, person.email, person.password);
  const streams = await openUpTo({ cookie });
  const third = await refusal({ cookie });
  expect(third.status).toBe(429);
  expect(third.body?.error?.code).toBe("rate_limited");
  for (const stream of streams) stream.close();
});
