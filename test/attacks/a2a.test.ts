import { A2A_ERROR_CODE } from "@a2a-js/sdk/errors";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ClaimboardClient } from "@/lib/client";
import { MAX_BODY_BYTES } from "@/lib/http/body";
import { httpFixture, type HttpFixture } from "@/test/http/helpers";
import { rpc } from "@/test/a2a/helpers";

// The attack matrix's rows for POST /api/a2a (docs/a2a.md): who may call it (agent and
// supervisor tokens; no token, an observer's and a claim token are refused by the API's
// guard), whose tasks a caller reaches (its own A2A tasks only: another token's, or a task
// made over the API, is a task that does not exist), and bytes that are not a call (too
// large, not JSON, not JSON-RPC, not a method): each a JSON-RPC error, and nothing written.

let f: HttpFixture;
let alice: string;
let bob: string;
let watcher: string;
let queue: string;
let alicesTask: string;
let apiTask: string;

const call = (method: string, params: unknown, id: number | string = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", parts, metadata: { queue }, ...extra },
});

beforeAll(async () => {
  f = await httpFixture();
  queue = await f.queue("a2a-attacks");
  alice = await f.token("alice");
  bob = await f.token("bob");
  watcher = await f.token("watcher", "observer");
  const sent = await rpc(f, alice, call("SendMessage", message([{ text: "Alice's task" }])));
  alicesTask = (sent.json?.result as { task: { id: string } }).task.id;
  apiTask = ((await f.api.post("/tasks", bob, { title: "Made over the API", queue })).body as { task: { id: string } }).task.id;
});
afterAll(async () => {
  await f?.close();
});

/** Runs `attempt` and checks it wrote no event, anywhere. */
async function writesNothing<T>(attempt: () => Promise<T>): Promise<T> {
  const before = await f.eventCount();
  const result = await attempt();
  expect(await f.eventCount()).toBe(before);
  return result;
}

test("no token, an observer's token and a claim token are refused before any method runs", async () => {
  await writesNothing(async () => {
    expect((await rpc(f, null, call("SendMessage", message([{ text: "anonymous" }])))).status).toBe(401);
    const observer = await rpc(f, watcher, call("SendMessage", message([{ text: "observer" }])));
    expect(observer.status).toBe(403);
    expect(observer.raw).toContain("forbidden");
  });
  const agent = new ClaimboardClient({ baseUrl: f.server.url, token: bob });
  const own = await f.queue("a2a-claims");
  await agent.createTask({ title: "Held with a claim token", queue: own });
  const held = (await agent.claimNext({ queue: own, start: true }))!;
  const { claimToken } = await agent.createClaimToken(held, ["read", "progress"]);
  await writesNothing(async () => {
    const claim = await rpc(f, claimToken, call("GetTask", { id: held.id }));
    expect(claim.status).toBe(403);
    expect(claim.raw).toContain("wrong_task");
  });
});

test("another token's A2A task, and a task made over the API, do not exist for this caller: get, cancel, reply, subscribe", async () => {
  await writesNothing(async () => {
    for (const id of [alicesTask, apiTask, "999999", "not-a-task"]) {
      for (const [method, params] of [
        ["GetTask", { id }],
        ["CancelTask", { id }],
        ["SendMessage", message([{ text: "an answer" }], { taskId: id })],
        ["SubscribeToTask", { id }],
      ] as const) {
        const answer = await rpc(f, bob, call(method, params));
        expect(answer.status, `${method} ${id}`).toBe(200);
        expect(answer.json?.error?.code, `${method} ${id}: ${answer.raw}`).toBe(A2A_ERROR_CODE.TASK_NOT_FOUND);
      }
    }
    const listed = await rpc(f, bob, call("ListTasks", {}));
    expect((listed.json?.result as { tasks: unknown[] }).tasks).toEqual([]);
  });
  // Alice still has hers.
  expect((await rpc(f, alice, call("GetTask", { id: alicesTask }))).json?.result).toMatchObject({ id: alicesTask, status: { state: "TASK_STATE_SUBMITTED" } });
});

test("oversized, malformed and not-JSON-RPC bodies are JSON-RPC errors, and nothing is written", async () => {
  await writesNothing(async () => {
    const huge = await rpc(f, alice, call("SendMessage", message([{ text: "x".repeat(MAX_BODY_BYTES) }])));
    expect(huge.status).toBe(413);
    expect(huge.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: A2A_ERROR_CODE.INVALID_REQUEST } });

    const cases: [string, number][] = [
      ["{not json", A2A_ERROR_CODE.PARSE_ERROR],
      ["null", A2A_ERROR_CODE.INVALID_PARAMS],
      ["42", A2A_ERROR_CODE.INVALID_PARAMS],
      [JSON.stringify({ jsonrpc: "2.0", id: { nested: true }, method: "GetTask", params: { id: alicesTask } }), A2A_ERROR_CODE.INVALID_PARAMS],
      [JSON.stringify({ id: 1, method: "SendMessage", params: {} }), A2A_ERROR_CODE.INVALID_PARAMS], // no "jsonrpc": "2.0"
      [JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: alicesTask } }]), A2A_ERROR_CODE.INVALID_PARAMS], // no batches
      [call("tasks/explode", {}), A2A_ERROR_CODE.METHOD_NOT_FOUND],
      [call("SendMessage", []), A2A_ERROR_CODE.INVALID_PARAMS],
      [call("SendMessage", {}), A2A_ERROR_CODE.INVALID_PARAMS],
      [call("SendMessage", message([])), A2A_ERROR_CODE.INVALID_PARAMS],
      [call("SendMessage", message([{ text: "a file" }, { url: "https://example.com/f.pdf" }])), A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED],
      [call("SendMessage", message([{ text: "t" }], { messageId: "" })), A2A_ERROR_CODE.INVALID_PARAMS],
      [call("SendMessage", message([{ text: "t".repeat(20_000) }])), A2A_ERROR_CODE.INVALID_PARAMS],
      [call("SendMessage", message([{ text: "t" }], { metadata: { queue: "nowhere" } })), A2A_ERROR_CODE.INVALID_PARAMS],
      [call("ListTasks", { pageToken: "../../etc" }), A2A_ERROR_CODE.INVALID_PARAMS],
      [call("CreateTaskPushNotificationConfig", { taskId: alicesTask, url: "https://example.com/hook" }), A2A_ERROR_CODE.PUSH_NOTIFICATION_NOT_SUPPORTED],
    ];
    for (const [body, code] of cases) {
      const answer = await rpc(f, alice, body);
      expect(answer.status, body.slice(0, 120)).toBe(200);
      expect(answer.json?.error?.code, `${body.slice(0, 120)}: ${answer.raw.slice(0, 300)}`).toBe(code);
      expect(answer.raw).not.toMatch(/at .*\.(js|ts):\d+/); // no stack trace
    }
    const noVersion = await rpc(f, alice, call("GetTask", { id: alicesTask }), { "A2A-Version": "" });
    expect(noVersion.json?.error?.code).toBe(A2A_ERROR_CODE.VERSION_NOT_SUPPORTED);
  });
});

test("an unknown queue is refused in the engine's words, with its code", async () => {
  const answer = await rpc(f, alice, call("SendMessage", message([{ text: "t" }], { metadata: { queue: "nowhere" } })));
  const api = await f.api.post("/tasks", alice, { title: "t", queue: "nowhere" });
  expect(answer.json?.error?.message).toBe((api.body as { error: { message: string } }).error.message);
  expect(answer.json?.error?.data?.[0]?.metadata?.code).toBe((api.body as { error: { code: string } }).error.code);
});
