import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { postDelivery } from "./deliver";
import { addressRefusal, urlRefusal } from "./targets";

// Tests' webhooks point at TEST-NET-2 (test/server.ts sets WEBHOOKS_ALLOW_TEST_NET=1): such a
// webhook may be registered there, and the sender still refuses every connection to it, so no
// test sends a packet off the machine. Without the setting it is refused like any special range.

afterEach(() => {
  delete process.env.WEBHOOKS_ALLOW_TEST_NET;
  delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
});

test("TEST-NET-2 is registrable only with WEBHOOKS_ALLOW_TEST_NET=1, and never connected to", async () => {
  expect(await urlRefusal("https://198.51.100.7/hook")).toMatch(/not allowed/);
  process.env.WEBHOOKS_ALLOW_TEST_NET = "1";
  expect(await urlRefusal("https://198.51.100.7/hook")).toBeNull();
  expect(addressRefusal("198.51.100.7")).not.toBeNull();
  expect((await postDelivery("https://198.51.100.7/hook", {}, "{}")).error).toMatch(/^refused: /);
  // Only TEST-NET-2: the other documentation ranges and private ones stay refused.
  expect(await urlRefusal("https://192.0.2.1/hook")).toMatch(/not allowed/);
  expect(await urlRefusal("https://10.0.0.8/hook")).toMatch(/not allowed/);
});

// Node connects to an IP literal without calling the lookup hook, so the sender judges a URL
// that names an address itself. A listener on loopback shows whether a connection was made.
test("a delivery to a refused IP literal makes no connection", async () => {
  let connections = 0;
  const server = createServer((_req, res) => res.end("ok"));
  server.on("connection", () => { connections += 1; });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  try {
    const refused = await postDelivery(`http://127.0.0.1:${port}/hook`, {}, "{}");
    expect(refused).toEqual({ status: null, error: expect.stringMatching(/^refused: .*loopback/) });
    expect(connections).toBe(0);
    process.env.WEBHOOKS_ALLOW_LOOPBACK = "1";
    expect(await postDelivery(`http://127.0.0.1:${port}/hook`, {}, "{}")).toEqual({ status: 200, error: null });
    expect(connections).toBe(1);
  } finally {
    server.close();
  }
});
