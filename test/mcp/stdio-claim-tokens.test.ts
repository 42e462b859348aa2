import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { expectTaskResponse, httpFixture, type HttpFixture } from "@/test/http/helpers";
import { call, connect, refusalOf, resultJson, taskOf } from "./helpers";

// The stdio server with CLAIMBOARD_CLAIM_TOKENS=1 (docs/mcp.md "Claim tokens over stdio"): each
// task its client claims is worked with a claim token of that attempt, limited to
// CLAIMBOARD_CLAIM_OPS, and dead once the attempt ends.

let f: HttpFixture;
let agent: string;
let boss: string;
beforeAll(async () => {
  f = await httpFixture();
  agent = await f.token("llm");
  boss = await f.token("boss", "supervisor");
  await f.queue("scoped");
});
afterAll(async () => {
  await f?.close();
});

const minted = async (id: string) => {
  for (let i = 0; i < 100; i++) {
    const rows = await f.database.client<{ ops: string[]; attempt: number }[]>`SELECT ops, attempt FROM claim_tokens WHERE task_id = ${id}::bigint`;
    if (rows.length > 0) return rows;
    await sleep(50);
  }
  return [];
};

test("a claimed task's calls go with its claim token: ops outside CLAIMBOARD_CLAIM_OPS refused, claim_ended once the attempt ended", { timeout: 90_000 }, async () => {
  const mcp = await connect(f, "stdio", agent, {}, { CLAIMBOARD_CLAIM_TOKENS: "1", CLAIMBOARD_CLAIM_OPS: "read,progress,complete" });
  try {
    const first = expectTaskResponse(await f.api.post("/tasks", boss, { title: "scoped one", queue: "scoped" }), 201);
    const claimed = await taskOf(mcp, "claim_next_task", { queue: "scoped", start: true });
    expect(claimed.id).toBe(first.id);
    expect(await minted(first.id)).toEqual([{ ops: ["read", "progress", "complete"], attempt: claimed.attempt }]);
    // effects is not among the ops: the claim token, not the agent's, made this call.
    await refusalOf(mcp, "record_effect", { id: first.id, version: claimed.version, name: "charge" }, "op_not_allowed");
    const beat = await taskOf(mcp, "report_progress", { id: first.id, version: claimed.version, progress: { step: 1 } });
    expect(beat.owner?.name).toBe("llm");
    const done = resultJson(await call(mcp, "complete_task", { id: first.id, version: claimed.version }));
    expect(done.task).toMatchObject({ id: first.id, status: "done" });

    // A task taken back by a supervisor: its claim token is dead, and the tool says so.
    const second = expectTaskResponse(await f.api.post("/tasks", boss, { title: "scoped two", queue: "scoped" }), 201);
    const held = await taskOf(mcp, "claim_next_task", { queue: "scoped", start: true });
    expect(held.id).toBe(second.id);
    expect(await minted(second.id)).toHaveLength(1);
    expectTaskResponse(await f.api.post(`/tasks/${second.id}/force-release`, boss, { version: held.version, reason: "taken back" }));
    await refusalOf(mcp, "report_progress", { id: second.id, version: held.version }, "claim_ended");
    // Forgotten: the next call goes with the agent token, which hears why the task is not its own.
    await refusalOf(mcp, "report_progress", { id: second.id, version: held.version }, "not_owner");
  } finally {
    await mcp.close();
  }
  expect(mcp.stderr()).toContain("claim tokens per held task (read, progress, complete)");
  expect(mcp.stderr()).not.toContain("cbc_");
  expect(f.server.output()).not.toContain("cbc_");
});
