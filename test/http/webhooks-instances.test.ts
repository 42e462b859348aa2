import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createActor, createTask, perform } from "@/lib/tasks";
import { startServer, type TestServer } from "../server";
import { httpFixture, type HttpFixture } from "./helpers";

// Two `next start` instances on one database, each running its own webhook sender (no
// leader): 500 events reach the receiver exactly once each, counted per webhook-id, every
// signature checked by the Standard Webhooks verifier.

const EVENTS = 500;
let f: HttpFixture;
let second: TestServer;
const ids = new Map<string, number>();
let bad = 0;
let receiver: http.Server;
let secret = "";

beforeAll(async () => {
  const env = { WEBHOOKS_ALLOW_LOOPBACK: "1", WEBHOOKS_POLL_MS: "100" };
  f = await httpFixture(env);
  second = await startServer(f.database.url, env);
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
      } catch {
        bad++;
      }
      const id = String(req.headers["webhook-id"]);
      ids.set(id, (ids.get(id) ?? 0) + 1);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
}, 120_000);
afterAll(async () => {
  receiver?.close();
  await second?.stop();
  await f?.close();
});

test(`two instances deliver each of ${EVENTS} events exactly once`, async () => {
  const boss = await f.token("boss", "supervisor");
  await f.queue("burst");
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
  const made = await f.api.post("/webhooks", boss, { url, events: ["created"], queues: ["burst"] });
  expect(made.status, made.text).toBe(201);
  secret = (made.body as { secret: string }).secret;
  const author = await createActor(f.database.db, "user", "Author");
  for (let i = 0; i < EVENTS; i++) {
    const r = await perform(createTask, { title: `burst ${i}`, queue: "burst" }, { db: f.database.db, actor: author });
    expect(r.ok).toBe(true);
  }
  for (let i = 0; i < 600 && ids.size < EVENTS; i++) await new Promise((r) => setTimeout(r, 100));
  expect(ids.size).toBe(EVENTS);
  expect([...ids.values()].every((n) => n === 1)).toBe(true);
  expect(bad).toBe(0);
  const [row] = await f.database.db.execute<{ tries: number; delivered: number }>(sql`
    SELECT sum(attempts)::int AS tries, count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM webhook_deliveries`);
  expect(row).toEqual({ tries: EVENTS, delivered: EVENTS });
}, 120_000);
