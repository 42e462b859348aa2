import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { rolesOf } from "@/lib/http/access";
import { endpoints, type Endpoint } from "@/lib/http/endpoints";
import { expectErrorShape, type HttpResult } from "@/test/http/helpers";
import { makeCallers, freshQueue, Scenes, type Caller } from "./callers";
import { sourceRoutes } from "./discover";
import { attackFixture, stateDigest, type AttackFixture } from "./helpers";
import { approval, aParkedBudget, aQuestion, aSchedule, aSubmission, aToken, aWebhook } from "./v12-scenes";

// The authorisation matrix of the route handlers: every app/**/route.ts and each method it
// exports, matched to its entry in lib/http/endpoints.ts (whose `roles` and `session` are
// the policy), × nine callers. Refusals answer 401/403 in the error shape with nothing
// written; allowed cells answer the endpoint's success status on a scene made for them.

type Request = { path: string; body?: unknown };
type Scene = (s: Scenes, caller: Caller, queue: string) => Promise<Request>;
const ownerCall = (verb: string, state: "claimed" | "started", extra: object = {}): Scene => async (s, c, q) => {
  const task = await s[state](q, c.actor);
  return { path: `/tasks/${task.id}/${verb}`, body: { version: task.version, ...extra } };
};

/** A call that should succeed, per endpoint. An endpoint without a row fails the matrix. */
const SCENES: Record<string, Scene> = {
  createTask: async (_s, _c, q) => ({ path: "/tasks", body: { title: "matrix", queue: q } }),
  listTasks: async (s, _c, q) => (await s.queued(q), { path: `/tasks?queue=${q}` }),
  countTasks: async (s, _c, q) => (await s.queued(q), { path: `/tasks/counts?queue=${q}` }),
  getTask: async (s, _c, q) => ({ path: `/tasks/${(await s.queued(q)).id}` }),
  listTaskEvents: async (s, _c, q) => ({ path: `/tasks/${(await s.queued(q)).id}/events` }),
  claimNext: async (s, _c, q) => (await s.queued(q), { path: "/claims", body: { queue: q } }),
  claimBatch: async (s, _c, q) => (await s.queued(q), { path: "/claims/batch", body: { queue: q, limit: 1 } }),
  claimTask: async (s, _c, q) => {
    const task = await s.queued(q);
    return { path: `/tasks/${task.id}/claim`, body: { version: task.version } };
  },
  startTask: ownerCall("start", "claimed"),
  heartbeat: ownerCall("heartbeat", "started"),
  recordSideEffect: ownerCall("side-effects", "started", { description: "sent a mail" }),
  releaseTask: ownerCall("release", "claimed"),
  completeTask: ownerCall("complete", "started", { next: {} }),
  completeTasks: async (s, c, q) => {
    const task = await s.started(q, c.actor);
    return { path: "/completions", body: { tasks: [{ id: task.id, version: task.version }] } };
  },
  failTask: ownerCall("fail", "claimed", { reason: "matrix" }),
  reviewTask: async (_s, _c, q) => {
    const task = await aSubmission(f.database.db, q);
    return { path: `/tasks/${task.id}/review`, body: approval(task) };
  },
  // Issue 25: only the task's editors (here its creator) or a supervisor block or unblock it.
  addDependencies: async (s, c, q) => {
    const [task, dependency] = [await s.queued(q, c.actor), await s.queued(q)];
    return { path: `/tasks/${task.id}/dependencies`, body: { version: task.version, dependsOn: [dependency.id] } };
  },
  removeDependency: async (s, c, q) => {
    const dependency = await s.queued(q);
    const task = await s.dependent(q, dependency.id, c.actor);
    return { path: `/tasks/${task.id}/dependencies/${dependency.id}`, body: { version: task.version } };
  },
  taskReadiness: async (s, _c, q) => ({ path: `/tasks/${(await s.queued(q)).id}/readiness` }),
  taskLease: async (s, c, q) => ({ path: `/tasks/${(await s.started(q, c.actor)).id}/lease` }),
  // The holder acknowledges a comment of the task (its own here: an ack with nothing unread answers the task).
  ackTask: async (s, c, q) => {
    const task = await s.started(q, c.actor);
    const [comment] = await f.database.client<{ id: string }[]>`
      INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
      VALUES (${task.id}::bigint, ${q}, 'commented', ${c.actor.id}::uuid, '{"body":"matrix"}'::jsonb, now()) RETURNING id::text`;
    return { path: `/tasks/${task.id}/ack`, body: { version: task.version, eventId: comment!.id } };
  },
  editTask: async (s, c, q) => {
    const task = await s.queued(q, c.actor);
    return { path: `/tasks/${task.id}`, body: { version: task.version, title: "matrix, edited" } };
  },
  addComment: async (s, _c, q) => ({ path: `/tasks/${(await s.queued(q)).id}/comments`, body: { body: "matrix" } }),
  requeueTask: async (s, _c, q) => {
    const task = await s.escalated(q);
    return { path: `/tasks/${task.id}/requeue`, body: { version: task.version, reason: "matrix" } };
  },
  resolveTask: async (s, _c, q) => {
    const task = await s.escalated(q);
    return { path: `/tasks/${task.id}/resolve`, body: { version: task.version } };
  },
  cancelTask: async (s, _c, q) => {
    const task = await s.queued(q);
    return { path: `/tasks/${task.id}/cancel`, body: { version: task.version, reason: "matrix" } };
  },
  forceReleaseTask: async (s, c, q) => {
    const task = await s.started(q, c.actor);
    return { path: `/tasks/${task.id}/force-release`, body: { version: task.version, reason: "matrix: stuck" } };
  },
  releaseReservations: async (s, _c, q) => {
    const { taskId, version } = await aQuestion(f.database.db, await s.queue(q), undefined, [{ resource: `${q}/**`, mode: "exclusive" }]);
    return { path: `/tasks/${taskId}/release-reservations`, body: { version, reason: "matrix" } };
  },
  recordEffect: ownerCall("effects", "started", { name: "charge the card" }),
  listEffects: async (s, _c, q) => ({ path: `/tasks/${(await s.queued(q)).id}/effects` }),
  recordCheckpoint: ownerCall("checkpoints", "started", { step: 1, state: { cursor: "matrix" } }),
  listCheckpoints: async (s, _c, q) => ({ path: `/tasks/${(await s.queued(q)).id}/checkpoints` }),
  resolveEffect: async (s, c, q) => {
    const { task, effectId } = await s.effect(q, c.actor);
    return { path: `/tasks/${task.id}/effects/${effectId}`, body: { version: task.version, state: "applied", externalRef: "ch_1" } };
  },
  askQuestion: ownerCall("questions", "started", { question: "matrix?" }),
  getQuestion: async (s, _c, q) => {
    const { taskId, questionId } = await aQuestion(f.database.db, await s.queue(q));
    return { path: `/tasks/${taskId}/questions/${questionId}` };
  },
  answerQuestion: async (s, _c, q) => {
    const { taskId, questionId } = await aQuestion(f.database.db, await s.queue(q));
    return { path: `/tasks/${taskId}/questions/${questionId}/answer`, body: { text: "yes", choice: "yes" } };
  },
  raiseBudget: async (s, _c, q) => {
    const task = await aParkedBudget(f.database.db, await s.queue(q));
    return { path: `/tasks/${task.id}/budget`, body: { version: task.version, add: 5 } };
  },
  setTokenBudget: async (_s, _c, q) => ({ path: `/tokens/${await aToken(f.database.db, q)}`, body: { monthlyBudget: { limit: 100, unit: "tokens" } } }),
  verifyFence: async (s, _c, q) => ({ path: "/fences/verify", body: { fence: await s.fence(q) } }),
  createClaimToken: ownerCall("claim-tokens", "started", { ops: ["read", "progress"] }),
  listQueues: async () => ({ path: "/queues" }),
  createQueue: async (_s, _c, q) => ({ path: "/queues", body: { name: `${q}-made`, description: "matrix" } }),
  updateQueue: async (_s, _c, q) => ({ path: `/queues/${q}`, body: { description: "matrix", leaseSeconds: 60 } }),
  createWebhook: async (_s, _c, q) => ({ path: "/webhooks", body: { url: `https://198.51.100.7/${q}`, events: ["breaker_tripped"], queues: [q] } }),
  listWebhooks: async () => ({ path: "/webhooks" }),
  deleteWebhook: async (_s, _c, q) => ({ path: `/webhooks/${await aWebhook(f.database.db, q)}` }),
  listWebhookDeliveries: async (_s, _c, q) => ({ path: `/webhooks/${await aWebhook(f.database.db, q)}/deliveries` }),
  createSchedule: async (_s, _c, q) => ({ path: "/schedules", body: { name: `made ${q}`, cron: "0 9 * * 1", queue: q, task: { title: "matrix" } } }),
  listSchedules: async () => ({ path: "/schedules" }),
  listReservations: async () => ({ path: "/reservations" }),
  attention: async () => ({ path: "/me/attention" }),
  updateSchedule: async (_s, _c, q) => ({ path: `/schedules/${await aSchedule(f.database.db, q)}`, body: { paused: true } }),
  deleteSchedule: async (_s, _c, q) => ({ path: `/schedules/${await aSchedule(f.database.db, q)}` }),
  adoptSchedule: async (_s, _c, q) => ({ path: `/schedules/${await aSchedule(f.database.db, q)}/adopt` }),
  adoptWebhook: async (_s, _c, q) => ({ path: `/webhooks/${await aWebhook(f.database.db, q)}/adopt` }),
  streamEvents: async (_s, _c, q) => ({ path: `/events?queue=${q}` }),
  openapi: async () => ({ path: "/openapi.json" }),
  health: async () => ({ path: "/health" }),
  metrics: async () => ({ path: "/metrics" }),
  getFleet: async () => ({ path: "/fleet" }),
};

/** Routes that are not endpoints of the API, with the policy they are held to instead. */
const NOT_ENDPOINTS: Record<string, string> = {
  "/api/v1/{...unknown}": "404 not_found in the error shape for every caller and method (checked below)",
  "/api/auth/{...nextauth}": "next-auth's own sign-in routes: test/attacks/passwords.test.ts and cross-origin.test.ts",
  "/api/mcp": "the MCP server: the API's guard for every token role, no cookies (checked below; tools in test/mcp/)",
  "/.well-known/oauth-protected-resource": "public OAuth metadata (RFC 9728), nothing secret: test/mcp/oauth.test.ts",
  "/.well-known/oauth-protected-resource/api/mcp": "the same metadata at its path-suffixed address: test/mcp/oauth.test.ts",
  "/.well-known/oauth-authorization-server": "public OAuth metadata (RFC 8414): test/mcp/oauth.test.ts",
  "/api/oauth/register": "open registration (RFC 7591), throttled per address; grants nothing by itself: test/mcp/oauth.test.ts",
  "/api/oauth/token": "the OAuth token endpoint: a code with its PKCE verifier, or a refresh token; OAuth errors otherwise: test/mcp/oauth.test.ts",
  "/api/oauth/revoke": "RFC 7009 revocation by the client that holds the token; the same 200 for any token: test/mcp/oauth.test.ts",
  "/api/oauth/approve": "the consent page's form: a signed-in person's session and this site's Origin: test/mcp/oauth-consent.test.ts",
  "/api/a2a": "the A2A server (JSON-RPC): the API's guard for agent and supervisor tokens; its rows are test/attacks/a2a.test.ts",
  "/.well-known/agent-card.json": "the public A2A agent card: queue names and the interface, nothing secret: test/a2a/round-trip.test.ts",
};

/** The policy, from the endpoint's registry entry. */
function expectation(endpoint: Endpoint, caller: Caller): 200 | 401 | 403 {
  const roles = rolesOf(endpoint);
  if (roles === "public") return 200;
  if (caller.tokenRole) return roles.includes(caller.tokenRole) ? 200 : 403;
  if (caller.role && endpoint.session) return 200; // a signed-in person reads as an observer
  return 401;
}

let f: AttackFixture;
let callers: Caller[];
let scenes: Scenes;
const all = Object.values(endpoints as Record<string, Endpoint>);
const routes = sourceRoutes();
const tally = { allowed: 0, denied: 0 };

beforeAll(async () => {
  f = await attackFixture({ AUTH_FAILURE_BURST: "100000" });
  callers = await makeCallers(f);
  scenes = new Scenes(f, callers.find((c) => c.name === "supervisor")!.actor);
});
afterAll(async () => {
  console.log(`[matrix:routes] ${all.length} endpoints × ${callers?.length} callers: ${tally.allowed} allowed cells worked, ${tally.denied} denied with nothing written`);
  f?.expectCleanLogs();
  await f?.close();
});

async function send(caller: Caller, method: string, request: Request): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(caller.cookie ? { cookie: caller.cookie } : {}), origin: f.server.url };
  if (method === "GET" && request.path.startsWith("/events")) {
    // The stream never ends: the status and type are the answer; then hang up.
    const abort = new AbortController();
    if (caller.token) headers.authorization = `Bearer ${caller.token}`;
    const response = await fetch(`${f.api.base}${request.path}`, { headers, signal: abort.signal });
    const text = response.headers.get("content-type")?.startsWith("text/event-stream") ? "" : await response.text();
    abort.abort();
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
  }
  return f.api.request(method, request.path, { token: caller.token, json: request.body, headers });
}

test("every route handler and method is an endpoint with a policy and a scene, or a declared exception", () => {
  for (const route of routes) {
    for (const method of route.methods) {
      if (route.path in NOT_ENDPOINTS) continue;
      const endpoint = all.find((e) => `/api/v1${e.path}` === route.path && e.method === method);
      expect(endpoint, `${method} ${route.path} (${route.file}) is in no row of lib/http/endpoints.ts`).toBeDefined();
      expect(SCENES, `${endpoint!.operationId} has no row in the matrix`).toHaveProperty(endpoint!.operationId);
    }
  }
  for (const e of all) expect(routes.some((r) => r.path === `/api/v1${e.path}` && r.methods.includes(e.method)), `${e.operationId} has a route`).toBe(true);
  console.log(`[matrix:routes] ${routes.length} route files, ${routes.reduce((n, r) => n + r.methods.length, 0)} methods`);
});

test("the registry's roles keep their shape: only health and the document are public, no write is open to observers or cookies", () => {
  expect(all.filter((e) => rolesOf(e) === "public").map((e) => e.operationId).sort()).toEqual(["health", "openapi"]);
  // POST /fences/verify is a read with a body (docs/contract.md#attempts-and-fences: any token), and writes nothing (lib/tasks/fences/attempts.test.ts).
  const READS_BY_POST = ["verifyFence"];
  for (const e of all.filter((e) => e.method !== "GET" && !READS_BY_POST.includes(e.operationId))) {
    expect(rolesOf(e), e.operationId).not.toContain("observer");
    expect(e.session, e.operationId).toBeFalsy();
  }
});

// A claim token (cbc_) of the agent token's, for a task of its own that no scene touches: on
// every endpoint but the public ones it is refused by its scope — wrong_task (it may work
// only on its task) — whatever the agent token itself may do there, and nothing is written.
describe("a claim token for another task", () => {
  test("every endpoint but the public ones answers 403 wrong_task and writes nothing", { timeout: 300_000 }, async () => {
    const agent = callers.find((c) => c.name === "agentToken")!;
    const own = await scenes.started(await scenes.queue(freshQueue()), agent.actor);
    const minted = await f.api.post(`/tasks/${own.id}/claim-tokens`, agent.token, { version: own.version });
    expect(minted.status, minted.text).toBe(201);
    const claimToken = (minted.body as { claimToken: string }).claimToken;
    const asClaim: Caller = { ...agent, token: claimToken };
    let refused = 0;
    for (const endpoint of all.filter((e) => rolesOf(e) !== "public")) {
      const request = await SCENES[endpoint.operationId]!(scenes, agent, await scenes.queue(freshQueue()));
      const before = await stateDigest(f);
      const res = await send(asClaim, endpoint.method, request);
      expect(res.status, `${endpoint.operationId}: ${res.text}`).toBe(403);
      expect(expectErrorShape(res).code, endpoint.operationId).toBe("wrong_task");
      expect(await stateDigest(f), `${endpoint.operationId}: a refused call changed the database`).toEqual(before);
      refused++;
    }
    console.log(`[matrix:routes] a claim token for another task: ${refused} endpoints refused it (wrong_task)`);
  });
});

describe.each(all.map((e) => [`${e.method} ${e.path}`, e] as const))("%s", (_name, endpoint) => {
  test("denied callers are refused and nothing is written; allowed callers succeed", { timeout: 120_000 }, async () => {
    const cells = await Promise.all(callers.map(async (caller) => ({
      caller, request: await SCENES[endpoint.operationId]!(scenes, caller, await scenes.queue(freshQueue())), expected: expectation(endpoint, caller),
    })));
    const before = await stateDigest(f);
    const denied = cells.filter((c) => c.expected !== 200);
    const answers = await Promise.all(denied.map(({ caller, request }) => send(caller, endpoint.method, request)));
    for (const [i, res] of answers.entries()) {
      const { caller, expected } = denied[i]!;
      expect(res.status, `${caller.name}: ${res.text}`).toBe(expected);
      expect(expectErrorShape(res).code).toBe(expected === 401 ? "unauthorized" : "forbidden");
    }
    expect(await stateDigest(f), "a refused call changed the database").toEqual(before);
    tally.denied += denied.length;

    for (const { caller, request } of cells.filter((c) => c.expected === 200)) {
      const res = await send(caller, endpoint.method, request);
      expect(res.status, `${caller.name}: ${res.text}`).toBe(endpoint.success.status);
      tally.allowed++;
    }
  });
});

test("anything else under /api/v1 is 404 in the error shape, whoever asks", async () => {
  for (const caller of callers) {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const res = await send(caller, method, { path: "/no-such-thing", body: method === "GET" ? undefined : {} });
      expect(res.status, `${caller.name} ${method}`).toBe(404);
      expect(expectErrorShape(res).code).toBe("not_found");
    }
  }
});

test("POST /api/mcp: every token role connects and is shown its tools; cookies, anonymous and revoked callers get 401; an observer's write is refused", async () => {
  const rpc = async (caller: Caller, message: object) => {
    const headers: Record<string, string> = {
      "content-type": "application/json", accept: "application/json, text/event-stream", origin: f.server.url,
      ...(caller.cookie ? { cookie: caller.cookie } : {}), ...(caller.token ? { authorization: `Bearer ${caller.token}` } : {}),
    };
    const res = await fetch(`${f.server.url}/api/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined } as HttpResult;
  };
  const before = await stateDigest(f);
  for (const caller of callers) {
    const res = await rpc(caller, { method: "tools/list" });
    if (!caller.tokenRole) {
      expect(res.status, `${caller.name}: ${res.text}`).toBe(401);
      expect(expectErrorShape(res).code).toBe("unauthorized");
      continue;
    }
    expect(res.status, `${caller.name}: ${res.text}`).toBe(200);
    const names = (res.body as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names.length, caller.name).toBe(caller.tokenRole === "observer" ? 7 : 24);
    tally.allowed++;
  }
  const observer = callers.find((c) => c.tokenRole === "observer")!;
  const write = await rpc(observer, { method: "tools/call", params: { name: "create_task", arguments: { title: "no" } } });
  const result = (write.body as { result: { isError: boolean; content: { text: string }[] } }).result;
  expect(result.isError).toBe(true);
  expect(JSON.parse(result.content[0]!.text).error.code).toBe("forbidden");
  expect(await stateDigest(f), "a refused call changed the database").toEqual(before);
  tally.denied += callers.filter((c) => !c.tokenRole).length + 1;
});
