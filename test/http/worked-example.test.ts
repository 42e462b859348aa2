import { afterAll, beforeAll, expect, test } from "vitest";
import {
  expectError,
  expectEvent,
  expectTaskResponse,
  httpFixture,
  type HttpFixture,
  type WireEvent,
  type WireTask,
} from "./helpers";

// The seed's worked example, over HTTP with two agent tokens, Amal and Bilal, in the
// default queue (120 s leases). T2's lease lapses by a fixture write to lease_until: the
// server compares with the database clock, so no one has to wait.

let f: HttpFixture;
let amal: string;
let bilal: string;

beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("Amal");
  bilal = await f.token("Bilal");
});
afterAll(async () => {
  await f?.close();
});

async function history(id: string): Promise<WireEvent[]> {
  const res = await f.api.get(`/tasks/${id}/events`, bilal);
  expect(res.status, res.text).toBe(200);
  return (res.body as { events: unknown[] }).events.map(expectEvent);
}

test("the worked example: a lost claim names the owner; a lapsed side effect comes back needs_check", async () => {
  const create = async (title: string) => expectTaskResponse(await f.api.post("/tasks", amal, { title }), 201);
  const t1 = await create("T1");
  const t2 = await create("T2");

  // T1: Amal claims at v2; Bilal, expecting v1, is told Amal holds it; Amal starts at v3.
  const claimed = expectTaskResponse(await f.api.post(`/tasks/${t1.id}/claim`, amal, { version: 1 }));
  expect(claimed).toMatchObject({ status: "claimed", version: 2, owner: { name: "Amal", kind: "agent" } });
  const lost = expectError(await f.api.post(`/tasks/${t1.id}/claim`, bilal, { version: 1 }), 409, "already_claimed");
  expect(lost.message).toContain("Amal");
  expect(lost.task).toMatchObject({ id: t1.id, version: 2, owner: { name: "Amal" } });
  // The same task, but for the fence and the unread comments: only its holder is given them.
  expect(expectTaskResponse(await f.api.get(`/tasks/${t1.id}`, bilal))).toEqual({ ...claimed, fence: null, unread: undefined });
  expect(expectTaskResponse(await f.api.post(`/tasks/${t1.id}/start`, amal, { version: 2 }))).toMatchObject({
    status: "started", version: 3,
  });

  // T2: claimed and started by Amal in one call — one act, one event, v2 — a side effect recorded.
  const running = expectTaskResponse(await f.api.post("/claims", amal, { start: true }));
  expect(running).toMatchObject({ id: t2.id, status: "started", version: 2 });
  expectTaskResponse(await f.api.post(`/tasks/${t2.id}/side-effects`, amal, { version: 2, description: "emailed the client" }));

  // Amal keeps T1 alive; T2's lease lapses.
  expectTaskResponse(await f.api.post(`/tasks/${t1.id}/heartbeat`, amal, { version: 3 }));
  await f.lapseLease(t2.id);

  // Bilal's claim-next gets T2 at v4, needs_check — claimed, not started.
  const taken: WireTask = expectTaskResponse(await f.api.post("/claims", bilal, {}));
  expect(taken).toMatchObject({ id: t2.id, status: "claimed", version: 4, needsCheck: true, owner: { name: "Bilal" } });
  expect((await f.api.post("/claims", bilal, {})).status).toBe(204);

  // Amal's later start of T2 is refused: it is Bilal's now.
  const refused = expectError(await f.api.post(`/tasks/${t2.id}/start`, amal, { version: 2 }), 409, "not_owner");
  expect(refused.task).toMatchObject({ id: t2.id, version: 4, owner: { name: "Bilal" } });
  expect(expectTaskResponse(await f.api.get(`/tasks/${t1.id}`, amal))).toMatchObject({
    status: "started", version: 3, owner: { name: "Amal" },
  });

  // The log, read over HTTP: exactly one claim_rejected, one lease_expired, and the needs_check.
  const h1 = await history(t1.id);
  const h2 = await history(t2.id);
  expect(h1.map((e) => e.type)).toEqual(["created", "claimed", "claim_rejected", "started", "heartbeat"]);
  expect(h2.map((e) => e.type)).toEqual(["created", "claimed", "side_effect", "lease_expired", "claimed"]);
  expect(h2[1]!.payload).toMatchObject({ version: 2, status: "started", started: true });
  const all = [...h1, ...h2];
  const rejected = all.filter((e) => e.type === "claim_rejected");
  const expired = all.filter((e) => e.type === "lease_expired");
  expect(rejected).toHaveLength(1);
  expect(rejected[0]).toMatchObject({ taskId: t1.id, actor: { name: "Bilal" }, payload: { version: 2, expectedVersion: 1 } });
  expect(expired).toHaveLength(1);
  expect(expired[0]).toMatchObject({ taskId: t2.id, actor: { kind: "system" }, payload: { needsCheck: true, version: 3 } });
  expect(h2.at(-1)).toMatchObject({ actor: { name: "Bilal" }, payload: { version: 4 } });
  const flagged = (await f.api.get("/tasks?limit=100", bilal)).body as { tasks: WireTask[] };
  expect(flagged.tasks.filter((t) => t.needsCheck).map((t) => t.id)).toEqual([t2.id]);
  expect(await f.eventCount()).toBe(10);

  // And on from there: Bilal must confirm the check before starting T2.
  expectError(await f.api.post(`/tasks/${t2.id}/start`, bilal, { version: 4 }), 409, "check_required");
  expect(expectTaskResponse(await f.api.post(`/tasks/${t2.id}/start`, bilal, { version: 4, confirmCheck: true }))).toMatchObject({
    status: "started", version: 5, needsCheck: false,
  });
  expect((await history(t2.id)).map((e) => e.type).slice(-2)).toEqual(["check_confirmed", "started"]);
});
