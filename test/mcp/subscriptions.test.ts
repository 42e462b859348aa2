import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { expectTaskResponse, httpFixture, type HttpFixture } from "@/test/http/helpers";
import { connect, type McpSession } from "./helpers";

// The task resource updated live where the transport has a stream: over stdio a client
// subscribes to claimboard://tasks/{id} and is told when the task changes (here: another
// agent claims it); after unsubscribing it is not. /api/mcp (stateless JSON) offers no
// subscriptions and says so in its capabilities.

let f: HttpFixture;
let token: string;
let rival: string;
const sessions: McpSession[] = [];

beforeAll(async () => {
  f = await httpFixture();
  token = await f.token("subscriber", "agent");
  rival = await f.token("subscribe-rival", "agent");
  await f.queue("subscribe");
});
afterAll(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  await f?.close();
});

test("over stdio: subscribe → a change → notifications/resources/updated; unsubscribe → silence; over HTTP: not offered", async () => {
  const stdio = await connect(f, "stdio", token);
  const http = await connect(f, "http", token);
  sessions.push(stdio, http);
  expect(stdio.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
  expect(http.client.getServerCapabilities()?.resources?.subscribe).toBeFalsy();

  const updates: string[] = [];
  stdio.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  const task = await expectTaskResponse(await f.api.post("/tasks", rival, { title: "watched", queue: "subscribe" }), 201);
  const uri = `claimboard://tasks/${task.id}`;
  await stdio.client.subscribeResource({ uri });
  await expect(stdio.client.subscribeResource({ uri: "claimboard://tasks/999999" })).rejects.toThrow(/not_found/);
  await expect(stdio.client.subscribeResource({ uri: "https://elsewhere.example/" })).rejects.toThrow(/Not a task resource/);

  // Nothing changes: nothing is sent.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(updates).toEqual([]);
  expect((await f.api.post(`/tasks/${task.id}/claim`, rival, { version: task.version })).status).toBe(200);
  for (let i = 0; i < 100 && updates.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(updates).toEqual([uri]);
  const read = await stdio.client.readResource({ uri });
  expect(JSON.parse((read.contents[0] as { text: string }).text).task).toMatchObject({ id: task.id, status: "claimed" });

  await stdio.client.unsubscribeResource({ uri });
  const claimed = JSON.parse((read.contents[0] as { text: string }).text).task as { version: number };
  expect((await f.api.post(`/tasks/${task.id}/release`, rival, { version: claimed.version })).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 4500));
  expect(updates).toEqual([uri]);
}, 60_000);
