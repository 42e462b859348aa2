import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectError, expectTaskResponse, httpFixture, type HttpFixture } from "./helpers";

// Webhooks over the API against `next start`: a supervisor registers an endpoint, a task's
// completion reaches a real receiver from the server's own sender (no test hook drives it),
// signed as Standard Webhooks says; the wrong role and bad input are refused; the delivery log
// says what happened; a deleted webhook hears nothing more.

let f: HttpFixture;
let boss: string;
let agent: string;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let receiver: http.Server;
let url = "";

beforeAll(async () => {
  f = await httpFixture({ WEBHOOKS_ALLOW_LOOPBACK: "1", WEBHOOKS_POLL_MS: "200" });
  boss = await f.token("boss", "supervisor");
  agent = await f.token("worker");
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/claimboard`;
});
afterAll(async () => {
  receiver?.close();
  await f?.close();
});

async function until<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Claim, start and complete a task as the agent. */
async function work(id: string) {
  const claimed = expectTaskResponse(await f.api.post(`/tasks/${id}/claim`, agent, { version: 1 }));
  const started = expectTaskResponse(await f.api.post(`/tasks/${id}/start`, agent, { version: claimed.version }));
  expectTaskResponse(await f.api.post(`/tasks/${id}/complete`, agent, { version: started.version }));
}

describe("webhooks", () => {
  test("registered by a supervisor, a completion is delivered signed, logged, and a delete stops it", async () => {
    await f.queue("hooked");
    const made = await f.api.post("/webhooks", boss, { url, events: ["completed"], queues: ["hooked"], description: "billing" });
    expect(made.status, made.text).toBe(201);
    const { webhook, secret } = made.body as { webhook: { id: string; url: string; events: string[] }; secret: string };
    expect(webhook).toMatchObject({ url, events: ["completed"], queues: ["hooked"], disabledAt: null });
    expect(secret).toMatch(/^whsec_/);
    const listed = await f.api.get("/webhooks", boss);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((listed.body as { webhooks: { id: string }[] }).webhooks.map((w) => w.id)).toContain(webhook.id);

    const task = expectTaskResponse(await f.api.post("/tasks", agent, { title: "charge card 4242", queue: "hooked" }), 201);
    await work(task.id);

    const got = await until("the delivery", () => received.find((r) => JSON.parse(r.body).data.taskId === task.id));
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const expected = createHmac("sha256", key).update(`${got.headers["webhook-id"]}.${got.headers["webhook-timestamp"]}.${got.body}`).digest("base64");
    expect(got.headers["webhook-signature"]).toBe(`v1,${expected}`);
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: "completed" });
    expect(Math.abs(Number(got.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(JSON.parse(got.body)).toMatchObject({ type: "completed", data: { taskId: task.id, status: "done", task: { title: "charge card 4242" } } });

    let deliveries: { status: string; attempts: number; type: string }[] = [];
    for (let i = 0; i < 50 && deliveries[0]?.status !== "delivered"; i++) {
      deliveries = ((await f.api.get(`/webhooks/${webhook.id}/deliveries`, boss)).body as { deliveries: typeof deliveries }).deliveries;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries).toEqual([expect.objectContaining({ status: "delivered", attempts: 1, type: "completed" })]);

    expect((await f.api.request("DELETE", `/webhooks/${webhook.id}`, { token: boss })).status).toBe(200);
    const before = received.length;
    const next = expectTaskResponse(await f.api.post("/tasks", agent, { title: "after delete", queue: "hooked" }), 201);
    await work(next.id);
    await new Promise((r) => setTimeout(r, 1000)); // five sender intervals
    expect(received.length).toBe(before);
    expectError(await f.api.get(`/webhooks/${webhook.id}/deliveries`, boss), 404, "not_found");
  }, 60_000);

  test("agents cannot register, list or delete; bad input is a 400 naming the field, writing nothing", async () => {
    expectError(await f.api.post("/webhooks", agent, { url, events: ["completed"] }), 403, "forbidden");
    expectError(await f.api.get("/webhooks", agent), 403, "forbidden");
    const before = ((await f.api.get("/webhooks", boss)).body as { webhooks: unknown[] }).webhooks.length;
    expect(expectError(await f.api.post("/webhooks", boss, { url: "http://10.1.2.3/x", events: ["completed"] }), 400, "invalid_request").field).toBe("url");
    expect(expectError(await f.api.post("/webhooks", boss, { url, events: [] }), 400, "invalid_request").field).toBe("events");
    expect(expectError(await f.api.post("/webhooks", boss, { url, events: ["completed"], secret: "mine" }), 400, "invalid_request").message).toMatch(/secret/);
    expectError(await f.api.request("DELETE", "/webhooks/not-a-uuid", { token: boss }), 400, "invalid_request");
    expectError(await f.api.request("DELETE", "/webhooks/00000000-0000-4000-8000-000000000000", { token: boss }), 404, "not_found");
    expect(((await f.api.get("/webhooks", boss)).body as { webhooks: unknown[] }).webhooks).toHaveLength(before);
  });
});
