import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { expectTaskResponse, httpFixture, type HttpFixture } from "@/test/http/helpers";
import { connect, eventTypes, taskOf } from "./helpers";

// "Leases an LLM does not have to babysit": over stdio the MCP server renews what its
// caller holds while the client stays connected, and when the client goes away the process
// exits and the lease lapses like a crashed agent's, so another agent takes the task over.

let f: HttpFixture;
let agent: string;
let rival: string;

beforeAll(async () => {
  f = await httpFixture();
  agent = await f.token("llm");
  rival = await f.token("rival");
  await f.queueSettings("short", { leaseSeconds: 10 });
});
afterAll(async () => {
  await f?.close();
});

const held = async (id: string) => {
  const [row] = await f.database.client<{ status: string; owner: string | null; live: boolean }[]>`
    SELECT t.status, a.name AS owner, t.lease_until > now() AS live
    FROM tasks t LEFT JOIN actors a ON a.id = t.owner_id WHERE t.id = ${id}::bigint`;
  return row!;
};

test("a 10 s lease is kept for 30 s while connected; after the client leaves, the server exits and another agent takes the task", { timeout: 90_000 }, async () => {
  const task = expectTaskResponse(await f.api.post("/tasks", rival, { title: "long work", queue: "short" }), 201);
  const mcp = await connect(f, "stdio", agent);
  const claimed = await taskOf(mcp, "claim_next_task", { queue: "short", start: true });
  expect(claimed).toMatchObject({ id: task.id, status: "started", owner: { name: "llm" } });
  expect(Date.parse(claimed.leaseUntil!) - Date.parse(claimed.updatedAt)).toBe(10_000);

  // Checked every second from the database itself: never lapsed, never anyone else's.
  const began = Date.now();
  while (Date.now() - began < 30_000) {
    expect(await held(task.id)).toEqual({ status: "started", owner: "llm", live: true });
    await sleep(1000);
  }
  const beats = (await eventTypes(f, task.id)).filter((e) => e.type === "heartbeat");
  expect(beats.length, "renewals at a third of the lease").toBeGreaterThanOrEqual(8);
  expect(beats.length).toBeLessThanOrEqual(12);
  expect(new Set(beats.map((e) => e.actor))).toEqual(new Set(["llm"]));

  // The client goes away: stdin closes, and the server leaves on its own (no signal needed).
  const pid = mcp.pid!;
  await mcp.close();
  expect(mcp.stderr()).toContain("the client closed stdin; exiting");
  expect(mcp.stderr()).toContain(`leases of task ${task.id} left to lapse`);
  expect(() => process.kill(pid, 0)).toThrow();
  expect((await eventTypes(f, task.id)).filter((e) => e.type === "released")).toEqual([]);

  // Nobody renews it now: the lease lapses and the next claimant takes the task over.
  const after = Date.now();
  let taken = null;
  while (!taken && Date.now() - after < 20_000) {
    const res = await f.api.post("/claims", rival, { queue: "short", start: true });
    if (res.status === 200) taken = expectTaskResponse(res);
    else await sleep(500);
  }
  expect(taken, "another agent took the task over").toMatchObject({ id: task.id, status: "started", owner: { name: "rival" } });
  expect(Date.now() - after).toBeGreaterThan(3_000); // it waited for the lapse
  const types = (await eventTypes(f, task.id)).map((e) => `${e.type}:${e.actor}`).filter((t) => !t.startsWith("heartbeat"));
  expect(types.slice(-2)).toEqual(["lease_expired:system", "claimed:rival"]); // the claim that started it: one event
  expect(mcp.stderr()).not.toContain(agent);
  expect(f.server.output()).not.toContain(agent);
});

test("a lease that lapsed before the server knew of it is tried once, not renewed for ever", { timeout: 60_000 }, async () => {
  await f.queueSettings("brief", { leaseSeconds: 5 });
  const lapsing = expectTaskResponse(await f.api.post("/tasks", rival, { title: "left to lapse", queue: "brief" }), 201);
  const claimed = expectTaskResponse(await f.api.post(`/tasks/${lapsing.id}/claim`, agent, { version: lapsing.version }));
  const other = expectTaskResponse(await f.api.post("/tasks", rival, { title: "the next one", queue: "brief" }), 201);
  await sleep(5_500); // the lease runs out on its own; nobody takes the task, so it still reads as the agent's

  const mcp = await connect(f, "stdio", agent);
  try {
    await taskOf(mcp, "claim_task", { id: other.id, version: other.version }); // the server learns who it is
    for (let i = 0; i < 3; i++) {
      expect(await taskOf(mcp, "get_task", { id: claimed.id })).toMatchObject({ status: "claimed", owner: { name: "llm" } });
      await sleep(1_500);
    }
    const tries = mcp.stderr().split("\n").filter((line) => line.includes(`stopped renewing task ${claimed.id}`));
    expect(tries).toEqual([`[mcp] stopped renewing task ${claimed.id}: lease_expired`]);
  } finally {
    await mcp.close();
  }
  expect(mcp.stderr()).not.toMatch(new RegExp(`leases of task [0-9, ]*\\b${claimed.id}\\b`));
});
