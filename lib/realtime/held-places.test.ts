import { afterEach, expect, test, vi } from "vitest";

// The held-request caps (held-places.ts): per caller and per instance, each kind apart, the
// refusal naming the cap that was met; a place given back is free again.

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
  delete (globalThis as { claimboardHeldPlaces?: unknown }).claimboardHeldPlaces;
});

async function fresh(env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.resetModules();
  delete (globalThis as { claimboardHeldPlaces?: unknown }).claimboardHeldPlaces;
  return import("./held-places");
}

test("a token's claim waits stop at its cap, the instance's at its own; each refusal names the cap it met", async () => {
  const { takeHeldPlace, heldCount } = await fresh({ CLAIM_WAITS_PER_TOKEN: "2", CLAIM_WAITS_PER_INSTANCE: "3" });
  const a1 = takeHeldPlace("claim wait", "token-a");
  const a2 = takeHeldPlace("claim wait", "token-a");
  expect("release" in a1 && "release" in a2).toBe(true);
  expect(takeHeldPlace("claim wait", "token-a")).toEqual({ refused: "At most 2 claim waits may be open per token (on this server); end one first" });
  expect("release" in takeHeldPlace("claim wait", "token-b")).toBe(true);
  expect(takeHeldPlace("claim wait", "token-c")).toEqual({ refused: "At most 3 claim waits may be open on this server; retry shortly or on another instance" });
  // Other kinds are counted apart.
  expect("release" in takeHeldPlace("question wait", "token-a")).toBe(true);
  expect(heldCount("claim wait")).toBe(3);
  if ("release" in a1) {
    a1.release();
    a1.release(); // idempotent
  }
  expect(heldCount("claim wait", "token-a")).toBe(1);
  expect("release" in takeHeldPlace("claim wait", "token-c")).toBe(true);
});

test("a person's streams have the person cap; STREAMS_PER_CALLER sets both caller caps", async () => {
  const { takeHeldPlace, HELD_CAPS } = await fresh({ STREAMS_PER_CALLER: "1" });
  expect(HELD_CAPS.stream).toMatchObject({ perToken: 1, perPerson: 1, perInstance: 10_000 });
  expect("release" in takeHeldPlace("stream", "session:sara")).toBe(true);
  expect(takeHeldPlace("stream", "session:sara")).toEqual({ refused: "At most 1 streams may be open per person (on this server); end one first" });
});

test("the defaults: 64 claim and question waits a token, 5,000 an instance; 20 streams a person, 1,000 a token", async () => {
  const { HELD_CAPS } = await fresh({});
  expect(HELD_CAPS).toEqual({
    stream: { perToken: 1_000, perPerson: 20, perInstance: 10_000 },
    "claim wait": { perToken: 64, perPerson: 64, perInstance: 5_000 },
    "question wait": { perToken: 64, perPerson: 64, perInstance: 5_000 },
  });
});
