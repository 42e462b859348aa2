import { afterEach, expect, test } from "vitest";
import { addressRefusal, urlRefusal } from "./targets";

// Tests' webhooks point at TEST-NET-2 (test/server.ts sets WEBHOOKS_ALLOW_TEST_NET=1): such a
// webhook may be registered there, and the sender still refuses every connection to it, so no
// test sends a packet off the machine. Without the setting it is refused like any special range.

afterEach(() => {
  delete process.env.WEBHOOKS_ALLOW_TEST_NET;
});

test("TEST-NET-2 is registrable only with WEBHOOKS_ALLOW_TEST_NET=1, and never connected to", async () => {
  expect(await urlRefusal("https://198.51.100.7/hook")).toMatch(/not allowed/);
  process.env.WEBHOOKS_ALLOW_TEST_NET = "1";
  expect(await urlRefusal("https://198.51.100.7/hook")).toBeNull();
  expect(addressRefusal("198.51.100.7")).not.toBeNull();
  // Only TEST-NET-2: the other documentation ranges and private ones stay refused.
  expect(await urlRefusal("https://192.0.2.1/hook")).toMatch(/not allowed/);
  expect(await urlRefusal("https://10.0.0.8/hook")).toMatch(/not allowed/);
});
