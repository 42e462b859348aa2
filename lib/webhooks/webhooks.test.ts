import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { claim, claimNext, complete, perform, start, type ActorRef } from "@/lib/tasks";
import { appendEvents } from "@/lib/tasks/core/events";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { createWebhook, deleteWebhook, listDeliveries } from "./ops";
import { postDelivery } from "./deliver";
import { MAX_TRIES, RETRY_DELAYS, sendDueDeliveries } from "./sender";

// The outbox and its senders against a real receiver on loopback (WEBHOOKS_ALLOW_LOOPBACK=1):
// deliveries written in the event's transaction, signed as Standard Webhooks says (checked
// here with HMAC computed by hand), retried with the same webhook-id, disabled by a 410, and
// never sent twice at once by two senders.

interface Received { headers: http.IncomingHttpHeaders; body: string }
let f: EngineFixture;
let sara: ActorRef;
let amal: ActorRef;
let received: Received[] = [];
let answer: (n: number) => number = () => 200;
/** What happens at the sender's side while the receiver holds its answer (a supervisor's delete, say). */
let whileAnswering: (() => Promise<unknown>) | null = null;
let receiver: http.Server;
let url = "";

beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = "1";
  process.env.NEXTAUTH_SECRET ??= "test-server-secret-for-webhooks";
  f = await engineFixture();
  sara = await f.actor("Sara");
  amal = await f.actor("Amal");
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      void (whileAnswering?.() ?? Promise.resolve()).then(() => {
        res.statusCode = answer(received.length);
        res.end(res.statusCode === 500 ? "boom" : "ok");
      });
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver?.close();
  await f?.close();
});
beforeEach(() => {
  received = [];
  answer = () => 200;
  whileAnswering = null;
});

const register = (input: Record<string, unknown>) => f.run(createWebhook, input as never, sara);
const deliveries = async (webhookId: string) => (await listDeliveries(f.db, { id: webhookId }))!.deliveries;
const send = () => sendDueDeliveries(f.db, { clock: f.clock });
/** A webhook's deliveries from the table: a deleted webhook's are no longer listed. */
const rawDeliveries = (webhookId: string) => f.db.execute<{ status: string; attempts: number; last_status: number | null }>(
  sql`SELECT status, attempts, last_status FROM webhook_deliveries WHERE webhook_id = ${webhookId}::uuid ORDER BY id`).then((rows) => [...rows]);

/**
 * Standard Webhooks' own verifier (the `standardwebhooks` package, which also checks the
 * timestamp's freshness), and the HMAC by hand: base64 HMAC-SHA256 of "id.timestamp.body".
 */
function signatureOk(r: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  } catch {
    return false;
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`).digest("base64");
  return String(r.headers["webhook-signature"]).split(" ").includes(`v1,${expected}`);
}

describe("registering", () => {
  test.each<[Record<string, unknown>, string, RegExp]>([
    [{ url: "ftp://example.com/x", events: ["completed"] }, "url", /https/],
    [{ url: "http://10.0.0.8/hook", events: ["completed"] }, "url", /private/],
    [{ url: "https://169.254.169.254/latest", events: ["completed"] }, "url", /link-local|private/],
    [{ url: "https://[::ffff:192.168.1.1]/x", events: ["completed"] }, "url", /private/],
    // IPv4 inside IPv6 that a translator on the path would reach: NAT64, 6to4, IPv4-compatible.
    [{ url: "https://[64:ff9b::a00:1]/x", events: ["completed"] }, "url", /private/],
    [{ url: "https://[2002:a00:1::1]/x", events: ["completed"] }, "url", /private/],
    [{ url: "https://[::10.0.0.1]/x", events: ["completed"] }, "url", /private/],
    // Every special-purpose range of the IANA registries: documentation, the 6to4 relay anycast,
    // IPv4-mapped in hex, site-local, AS112, ORCHID, SRv6, benchmarking.
    ...["192.0.2.1", "198.51.100.7", "203.0.113.9", "192.88.99.1", "192.31.196.1", "192.52.193.1", "192.175.48.1", "[::ffff:a00:1]", "[::ffff:5db8:d707]",
      "[fec0::1]", "[3fff::1]", "[2001:2::1]", "[2001:10::1]", "[2001:20::1]", "[2620:4f:8000::1]", "[5f00::1]"]
      .map((host): [Record<string, unknown>, string, RegExp] => [{ url: `https://${host}/x`, events: ["completed"] }, "url", /private|reserved|special/]),
    [{ url: "https://user:pw@93.184.215.7/x", events: ["completed"] }, "url", /credentials/],
    [{ url: "not a url", events: ["completed"] }, "url", /valid URL/],
    [{ url: "https://93.184.215.7/x", events: [] }, "events", /at least one/],
    [{ url: "https://93.184.215.7/x", events: ["finished"] }, "events.0", /./],
    [{ url: "https://93.184.215.7/x", events: ["*"], queues: ["nope"] }, "queues", /no queue is named nope/],
  ])("%o is refused naming %s, and nothing is written", async (input, field, message) => {
    const before = await f.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhooks`);
    const result = await register(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_request");
    expect(result.error.field).toBe(field);
    expect(result.error.message).toMatch(message);
    expect(await f.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhooks`)).toEqual(before);
  });

  test("loopback needs WEBHOOKS_ALLOW_LOOPBACK=1; a person who is no supervisor is refused", async () => {
    process.env.WEBHOOKS_ALLOW_LOOPBACK = "";
    try {
      const refused = await register({ url, events: ["*"] });
      expect(!refused.ok && refused.error.message).toMatch(/loopback/);
    } finally {
      process.env.WEBHOOKS_ALLOW_LOOPBACK = "1";
    }
    const staff = await perform(createWebhook, { url, events: ["*"] }, { db: f.db, actor: amal, standing: "staff", clock: f.clock });
    expect(!staff.ok && staff.error.code).toBe("forbidden");
  });
});

describe("connecting", () => {
  test("every connection's own lookup refuses a refused address (a name re-resolved later: DNS rebinding)", async () => {
    // "localhost" is a name, resolved at connect time; without the loopback switch its address is refused there.
    const target = url.replace("127.0.0.1", "localhost");
    process.env.WEBHOOKS_ALLOW_LOOPBACK = "";
    try {
      const refused = await postDelivery(target, {}, "{}");
      expect(refused.status).toBeNull();
      expect(refused.error).toMatch(/refused: .*loopback/);
    } finally {
      process.env.WEBHOOKS_ALLOW_LOOPBACK = "1";
    }
    expect(received).toHaveLength(0);
    expect(await postDelivery(target, {}, "{}")).toEqual({ status: 200, error: null });
  });

  test("a redirect is not followed: it is a failed try", async () => {
    answer = () => 302;
    const outcome = await postDelivery(url, {}, "{}");
    expect(outcome.status).toBe(302);
    expect(outcome.error).toMatch(/^HTTP 302/);
    expect(received).toHaveLength(1);
  });
});

describe("delivering", () => {
  test("an event's delivery is written with it, signed, and carries the event and the task", async () => {
    await f.queue("hooks-a");
    const { webhook, secret } = await f.must(createWebhook, { url, events: ["completed"], queues: ["hooks-a"] }, sara);
    expect(secret).toMatch(/^whsec_/);
    const task = await f.task("Ship it", { queue: "hooks-a" });
    const other = await f.task("Elsewhere", { queue: "hooks-b" });
    for (const t of [task, other]) {
      await f.must(claim, { taskId: t.id, version: 1 }, amal);
      await f.must(start, { taskId: t.id, version: 2 }, amal);
      await f.must(complete, { taskId: t.id, version: 3 }, amal);
    }
    // Only the completion of the task in hooks-a matches: one row, pending, before any send.
    const pending = await deliveries(webhook.id);
    expect(pending.map((d) => [d.type, d.taskId, d.status])).toEqual([["completed", task.id, "pending"]]);

    expect(await send()).toBe(1);
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(signatureOk(got!, secret)).toBe(true);
    expect(signatureOk(got!, "whsec_" + Buffer.from("another key").toString("base64"))).toBe(false);
    expect(got!.headers["webhook-id"]).toBe(`evt_${pending[0]!.eventId}`);
    const body = JSON.parse(got!.body);
    expect(body).toMatchObject({ type: "completed", data: { eventId: pending[0]!.eventId, taskId: task.id, queue: "hooks-a", version: 4, status: "done", actor: { id: amal.id, name: "Amal" } } });
    expect(body.data.task).toMatchObject({ id: task.id, title: "Ship it", status: "done" });
    expect(await rawDeliveries(webhook.id)).toEqual([{ status: "delivered", attempts: 1, last_status: 200 }]);
    expect(await send()).toBe(0); // nothing twice
  });

  test("a subscription to started gets a claim that started in one act, and the start made apart; one to claimed gets every claim", async () => {
    await f.queue("hooks-start");
    const started = await f.must(createWebhook, { url, events: ["started"], queues: ["hooks-start"] }, sara);
    const claimed = await f.must(createWebhook, { url, events: ["claimed"], queues: ["hooks-start"] }, sara);
    const oneAct = await f.task("claimed and started", { queue: "hooks-start" });
    const apart = await f.task("claimed, then started", { queue: "hooks-start" });
    await f.must(claimNext, { queue: "hooks-start", start: true }, amal); // oneAct: one claimed event, started: true
    await f.must(claim, { taskId: apart.id, version: 1 }, amal);
    await f.must(claim, { taskId: (await f.task("claimed only", { queue: "hooks-start" })).id, version: 1 }, amal);
    await f.must(start, { taskId: apart.id, version: 2 }, amal);
    const of = async (id: string) => (await deliveries(id)).map((d) => [d.type, d.taskId]).reverse(); // listed newest first
    try {
      expect(await of(started.webhook.id)).toEqual([["claimed", oneAct.id], ["started", apart.id]]);
      expect((await of(claimed.webhook.id)).map(([type]) => type)).toEqual(["claimed", "claimed", "claimed"]);
    } finally {
      for (const { webhook } of [started, claimed]) await f.must(deleteWebhook, { id: webhook.id }, sara);
    }
  });

  test("a transaction that rolls back leaves no delivery", async () => {
    const { webhook } = await f.must(createWebhook, { url, events: ["*"] }, sara);
    await f.db.transaction(async (tx) => {
      await appendEvents(tx, f.clock, [{ taskId: null, queue: "default", actorId: sara.id, type: "breaker_reset", payload: {} }]);
      tx.rollback();
    }).catch(() => {});
    expect(await deliveries(webhook.id)).toEqual([]);
    await f.must(deleteWebhook, { id: webhook.id }, sara);
  });

  test("a failed try is retried with backoff and the same webhook-id; out of tries it fails", async () => {
    await f.queue("hooks-retry");
    const { webhook } = await f.must(createWebhook, { url, events: ["created"], queues: ["hooks-retry"] }, sara);
    await f.task("flaky receiver", { queue: "hooks-retry" });
    answer = () => 500;
    expect(await send()).toBe(1);
    const [first] = await deliveries(webhook.id);
    expect(first).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500 });
    expect(first!.lastError).toMatch(/HTTP 500: boom/);
    expect(first!.nextAttemptAt!.getTime() - f.clock.time.getTime()).toBe(RETRY_DELAYS[0] * 1000);
    f.clock.advance(RETRY_DELAYS[0] - 1);
    expect(await send()).toBe(0); // not due yet
    for (let i = 1; i < MAX_TRIES; i++) {
      f.clock.advance(RETRY_DELAYS[i - 1]!);
      expect(await send()).toBe(1);
    }
    expect(received).toHaveLength(MAX_TRIES);
    expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect((await deliveries(webhook.id))[0]).toMatchObject({ status: "failed", attempts: MAX_TRIES });
    expect(RETRY_DELAYS.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3600);
    await f.must(deleteWebhook, { id: webhook.id }, sara);
  });

  test("a receiver that answers 500 twice then 200 sees three deliveries with one webhook-id", async () => {
    await f.queue("hooks-twice");
    const { webhook, secret } = await f.must(createWebhook, { url, events: ["created"], queues: ["hooks-twice"] }, sara);
    await f.task("third time lucky", { queue: "hooks-twice" });
    answer = (n) => (n <= 2 ? 500 : 200);
    expect(await send()).toBe(1);
    f.clock.advance(RETRY_DELAYS[0]);
    expect(await send()).toBe(1);
    f.clock.advance(RETRY_DELAYS[1]);
    expect(await send()).toBe(1);
    f.clock.advance(3600);
    expect(await send()).toBe(0);
    expect(received.map((r) => r.headers["webhook-id"])).toEqual(Array(3).fill(received[0]!.headers["webhook-id"]));
    expect(received.every((r) => signatureOk(r, secret))).toBe(true);
    expect((await deliveries(webhook.id))[0]).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200, lastError: null });
    await f.must(deleteWebhook, { id: webhook.id }, sara);
  });

  test("410 Gone disables the webhook, drops what was still to send, and is audited", async () => {
    await f.queue("hooks-gone");
    const { webhook } = await f.must(createWebhook, { url, events: ["created"], queues: ["hooks-gone"] }, sara);
    await f.task("one", { queue: "hooks-gone" });
    await f.task("two", { queue: "hooks-gone" });
    answer = () => 410;
    await sendDueDeliveries(f.db, { clock: f.clock, limit: 1 });
    const [hook] = await f.db.execute<{ disabled_reason: string }>(sql`SELECT disabled_reason FROM webhooks WHERE id = ${webhook.id}::uuid`);
    expect(hook!.disabled_reason).toMatch(/410/);
    expect((await deliveries(webhook.id)).map((d) => d.status)).toEqual(["failed", "failed"]);
    await f.task("three", { queue: "hooks-gone" });
    expect(await deliveries(webhook.id)).toHaveLength(2); // nothing more is written for it
    const [audit] = await f.db.execute<{ action: string }>(sql`SELECT action FROM audit_events WHERE subject_id = ${webhook.id}::uuid ORDER BY id DESC LIMIT 1`);
    expect(audit!.action).toBe("webhook_disabled");
  });

  test("a webhook deleted while its delivery is on the wire gets no retry: the delete's failed stands", async () => {
    await f.queue("hooks-deleted");
    const { webhook } = await f.must(createWebhook, { url, events: ["created"], queues: ["hooks-deleted"] }, sara);
    await f.task("sent as it goes", { queue: "hooks-deleted" });
    answer = () => 500;
    whileAnswering = () => f.must(deleteWebhook, { id: webhook.id }, sara);
    expect(await send()).toBe(1);
    expect(await rawDeliveries(webhook.id)).toEqual([{ status: "failed", attempts: 1, last_status: null }]);
    whileAnswering = null;
    f.clock.advance(RETRY_DELAYS.reduce((a, b) => a + b, 0));
    expect(await send()).toBe(0);
    expect(received).toHaveLength(1);
  });

  test("a delivery that lands while its webhook is deleted is recorded delivered", async () => {
    await f.queue("hooks-landed");
    const { webhook } = await f.must(createWebhook, { url, events: ["created"], queues: ["hooks-landed"] }, sara);
    await f.task("landed", { queue: "hooks-landed" });
    whileAnswering = () => f.must(deleteWebhook, { id: webhook.id }, sara);
    expect(await send()).toBe(1);
    expect(await rawDeliveries(webhook.id)).toEqual([{ status: "delivered", attempts: 1, last_status: 200 }]);
  });

  test("two senders at once send every delivery exactly once", async () => {
    await f.queue("hooks-two");
    const { webhook } = await f.must(createWebhook, { url, events: ["commented"], queues: ["hooks-two"] }, sara);
    await f.db.transaction(async (tx) => {
      // 500 events in one go (each its own delivery), as a burst of activity would write them.
      await appendEvents(tx, f.clock, Array.from({ length: 500 }, () => ({ taskId: null, queue: "hooks-two", actorId: sara.id, type: "commented" as const, payload: { body: "burst" } })));
    });
    const a = f.database.connect({ max: 4 }).db;
    const b = f.database.connect({ max: 4 }).db;
    const drain = async (db: typeof a) => { while ((await sendDueDeliveries(db, { clock: f.clock, limit: 10 })) > 0); };
    await Promise.all([drain(a), drain(b), drain(a), drain(b)]);
    const ids = received.map((r) => String(r.headers["webhook-id"]));
    expect(ids).toHaveLength(500);
    expect(new Set(ids).size).toBe(500);
    expect((await deliveries(webhook.id)).every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true);
  });
});
