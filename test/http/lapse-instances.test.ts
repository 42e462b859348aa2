import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createActor, createTask, perform, type ActorRef } from "@/lib/tasks";
import { startServer, type TestServer } from "../server";
import { Api, httpFixture, type HttpFixture } from "./helpers";

// Two `next start` instances on one database, each with its own lapse clock (instrumentation.ts)
// and webhook sender. A lease that nobody renews and nobody takes over is announced once
// (`lapsed`), delivered once to a webhook, within 5 s of its end — real 5 s leases, nothing
// written by hand, no claim and no sweep after it; and the owner who finishes late still may.

interface Delivery { id: string; type: string; taskId: string; payload: Record<string, unknown>; at: number }

let f: HttpFixture;
let second: TestServer;
let receiver: http.Server;
let secret = "";
let author: ActorRef;
const deliveries: Delivery[] = [];
let bad = 0;

beforeAll(async () => {
  const env = { WEBHOOKS_ALLOW_LOOPBACK: "1", WEBHOOKS_POLL_MS: "100" };
  f = await httpFixture(env);
  second = await startServer(f.database.url, env);
  author = await createActor(f.database.db, "user", "Author");
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
      } catch {
        bad++;
      }
      const parsed = JSON.parse(body) as { type: string; data: { taskId: string; payload: Record<string, unknown> } };
      deliveries.push({ id: String(req.headers["webhook-id"]), type: parsed.type, taskId: parsed.data.taskId, payload: parsed.data.payload, at: Date.now() });
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
}, 180_000);
afterAll(async () => {
  receiver?.close();
  await second?.stop();
  await f?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const lapsedEvents = async (queue: string) =>
  f.database.db.execute<{ task_id: string; created_at: string; payload: Record<string, unknown> }>(sql`
    SELECT task_id::text, created_at, payload FROM task_events WHERE queue = ${queue} AND type = 'lapsed' ORDER BY id`);

async function subscribe(queue: string): Promise<void> {
  const boss = await f.token(`boss-${queue}`, "supervisor");
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
  const made = await f.api.post("/webhooks", boss, { url, events: ["lapsed"], queues: [queue] });
  expect(made.status, made.text).toBe(201);
  secret = (made.body as { secret: string }).secret;
}

test("a lapse nobody takes: one lapsed event and one delivery within 5 s across two instances; the late owner completes", async () => {
  const queue = "quiet";
  await f.queueSettings(queue, { leaseSeconds: 5 });
  await subscribe(queue);
  const agent = await f.token("agent-7");
  // Each instance started its hub (its one LISTEN) and its clock at boot, before any stream opened.
  const [listening] = await f.database.db.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'claimboard-listen'`);
  expect(listening!.n).toBe(2);
  const made = await perform(createTask, { title: "stranded", queue }, { db: f.database.db, actor: author });
  expect(made.ok).toBe(true);
  // Claimed through the second instance; nothing renews it, nothing claims or sweeps after.
  const claimed = await new Api(`${second.url}/api/v1`).post("/claims", agent, { queue, start: true });
  expect(claimed.status, claimed.text).toBe(200);
  const task = (claimed.body as { task: { id: string; version: number; leaseUntil: string } }).task;
  const end = Date.parse(task.leaseUntil);

  for (let i = 0; i < 120 && deliveries.filter((d) => d.taskId === task.id).length === 0; i++) await sleep(100);
  const mine = deliveries.filter((d) => d.taskId === task.id);
  expect(mine).toHaveLength(1);
  expect(mine[0]!.type).toBe("lapsed");
  expect(mine[0]!.at - end).toBeLessThan(5_000);
  expect(mine[0]!.payload).toMatchObject({ attempt: 1, leaseUntil: task.leaseUntil, owner: { name: "agent-7", kind: "agent" }, version: task.version, status: "started" });
  expect(bad).toBe(0);
  console.log(`[lapse] lease end → webhook delivery: ${mine[0]!.at - end} ms (the sender polls every 100 ms here)`);
  // Both clocks fired at this end; still one event, one delivery, a while later.
  await sleep(2_000);
  const events = await lapsedEvents(queue);
  expect(events).toHaveLength(1);
  expect(new Date(events[0]!.created_at).getTime() - end).toBeLessThan(5_000);
  console.log(`[lapse] lease end → lapsed event: ${new Date(events[0]!.created_at).getTime() - end} ms`);
  expect(deliveries.filter((d) => d.taskId === task.id)).toHaveLength(1);

  // Nobody reclaimed: the owner who finishes late still may (through the first instance).
  const done = await f.api.post(`/tasks/${task.id}/complete`, agent, { version: task.version, result: "late but done" });
  expect(done.status, done.text).toBe(200);
  expect((done.body as { task: { status: string; version: number } }).task).toMatchObject({ status: "done", version: task.version + 1 });
}, 60_000);

test("an expiry storm across two instances: 200 leases ending at once, one lapsed each", async () => {
  const queue = "storm";
  await f.queueSettings(queue, { leaseSeconds: 5 });
  await subscribe(queue);
  const agent = await f.token("agent-storm");
  for (let i = 0; i < 200; i++) await perform(createTask, { title: `storm ${i}`, queue }, { db: f.database.db, actor: author });
  const claimedIds: string[] = [];
  let lastEnd = 0;
  for (let i = 0; i < 2; i++) {
    const r = await f.api.post("/claims/batch", agent, { queue, limit: 100 });
    expect(r.status, r.text).toBe(200);
    for (const t of (r.body as { tasks: { id: string; leaseUntil: string }[] }).tasks) {
      claimedIds.push(t.id);
      lastEnd = Math.max(lastEnd, Date.parse(t.leaseUntil));
    }
  }
  expect(claimedIds).toHaveLength(200);
  for (let i = 0; i < 150; i++) {
    if ((await lapsedEvents(queue)).length >= 200 && deliveries.filter((d) => claimedIds.includes(d.taskId)).length >= 200) break;
    await sleep(100);
  }
  await sleep(1_500);
  const events = await lapsedEvents(queue);
  expect(events).toHaveLength(200);
  expect(new Set(events.map((e) => e.task_id))).toEqual(new Set(claimedIds));
  expect(Math.max(...events.map((e) => new Date(e.created_at).getTime())) - lastEnd).toBeLessThan(5_000);
  const delivered = deliveries.filter((d) => claimedIds.includes(d.taskId));
  expect(delivered).toHaveLength(200);
  expect(new Set(delivered.map((d) => d.id)).size).toBe(200);
  // Announced, not acted on: all still claimed at the version the claim left.
  const [row] = await f.database.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM tasks WHERE queue = ${queue} AND status = 'claimed' AND version = 2`);
  expect(row!.n).toBe(200);
}, 90_000);
