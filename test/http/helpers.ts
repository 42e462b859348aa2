import { expect } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { createActor, perform, setQueueSettings } from "@/lib/tasks";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { startServer, type TestServer } from "@/test/server";
import type { QueueSettingsInput } from "@/lib/tasks/core/schemas";

// Plain-fetch helpers for the HTTP suites: a real `next start` server on a database of the
// file's own, and assertions for the task object of docs/contract.md#the-task-object and error envelope.

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body; undefined when the body is empty or not JSON. */
  body: unknown;
}

export interface RequestOptions {
  token?: string | null;
  /** Serialised with JSON.stringify. */
  json?: unknown;
  /** Sent as is (bytes, a string or a stream); overrides json. */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

export class Api {
  constructor(readonly base: string) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: BodyInit | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] ??= "application/json";
    }
    const init: RequestInit & { duplex?: "half" } = { method, headers, body };
    if (body instanceof ReadableStream) init.duplex = "half";
    const response = await fetch(this.base + path, init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  get(path: string, token?: string | null, headers?: Record<string, string>) {
    return this.request("GET", path, { token, headers });
  }

  post(path: string, token: string | null | undefined, json?: unknown, headers?: Record<string, string>) {
    return this.request("POST", path, { token, json, headers });
  }
}

export interface HttpFixture {
  database: TestDatabase;
  server: TestServer;
  api: Api;
  /** A new token of `role` (default agent); its actor is named `name`. */
  token(name: string, role?: "agent" | "observer" | "supervisor"): Promise<string>;
  /** Makes queue `name` (test/queues.ts; queues exist only on purpose) and returns its name. */
  queue(name: string): Promise<string>;
  /** Queue settings as a supervisor would set them (engine call straight on the database); makes the queue if new. */
  queueSettings(queue: string, settings: Omit<QueueSettingsInput, "queue">): Promise<void>;
  /** Test fixture: the task's current attempt was claimed `seconds` earlier than it was (for the attempt ceiling). */
  ageAttempt(taskId: string, seconds: number): Promise<void>;
  /** Test fixture: the task's lease lapsed a second ago (the server compares with the database clock). */
  lapseLease(taskId: string): Promise<void>;
  /** Rows of task_events, all or of one task. */
  eventCount(taskId?: string): Promise<number>;
  close(): Promise<void>;
}

/** A fresh database and a production server on it, started with `env`. */
export async function httpFixture(env: Record<string, string> = {}): Promise<HttpFixture> {
  const database = await freshDatabase();
  let server: TestServer;
  try {
    server = await startServer(database.url, env);
  } catch (error) {
    await database.close();
    throw error;
  }
  const supervisor = await createActor(database.db, "user", "Test supervisor");
  const sql = database.client;
  return {
    database,
    server,
    api: new Api(`${server.url}/api/v1`),
    token: async (name, role = "agent") => (await createAgentToken(database.db, { name, role })).token,
    queue: (name) => makeQueue(database.db, name),
    async queueSettings(queue, settings) {
      await makeQueue(database.db, queue);
      const result = await perform(setQueueSettings, { queue, ...settings }, { db: database.db, actor: supervisor });
      if (!result.ok) throw new Error(`setQueueSettings: ${result.error.message}`);
    },
    async ageAttempt(taskId, seconds) {
      const updated = await sql`
        UPDATE tasks SET claimed_at = claimed_at - make_interval(secs => ${seconds})
        WHERE id = ${taskId}::bigint AND status IN ('claimed', 'started')`;
      if (updated.count !== 1) throw new Error(`task ${taskId} is not held`);
    },
    async lapseLease(taskId) {
      const updated = await sql`
        UPDATE tasks SET lease_until = now() - interval '1 second'
        WHERE id = ${taskId}::bigint AND status IN ('claimed', 'started')`;
      if (updated.count !== 1) throw new Error(`task ${taskId} is not held`);
    },
    async eventCount(taskId) {
      const [row] = taskId
        ? await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM task_events WHERE task_id = ${taskId}::bigint`
        : await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM task_events`;
      return row!.n;
    },
    async close() {
      await server.stop();
      await database.close();
    },
  };
}

// ---------------------------------------------------------------------------------------
// Shapes

export const ERROR_CODES = [
  "invalid_request",
  "unauthorized",
  "forbidden",
  "self_review",
  "not_found",
  "method_not_allowed",
  "claim_ended",
  "wrong_task",
  "op_not_allowed",
  "already_claimed",
  "version_conflict",
  "not_owner",
  "lease_expired",
  "invalid_transition",
  "check_required",
  "attempt_limit",
  "no_progress",
  "unread_human_input",
  "effects_unresolved",
  "self_review",
  "submission_changed",
  "payload_too_large",
  "busy",
  "rate_limited",
  "unavailable",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The error table of docs/contract.md#errors: the status each code answers with. */
export const STATUS_OF_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  self_review: 403,
  not_found: 404,
  method_not_allowed: 405,
  claim_ended: 401,
  wrong_task: 403,
  op_not_allowed: 403,
  already_claimed: 409,
  no_progress: 409,
  unread_human_input: 409,
  effects_unresolved: 409,
  submission_changed: 409,
  version_conflict: 409,
  not_owner: 409,
  lease_expired: 409,
  invalid_transition: 409,
  check_required: 409,
  attempt_limit: 409,
  payload_too_large: 413,
  busy: 409,
  rate_limited: 429,
  unavailable: 503,
};

export interface WireActor {
  id: string;
  name: string;
  kind: "user" | "agent" | "system";
}

export interface WireTask {
  id: string;
  queue: string;
  title: string;
  description: string;
  payload: unknown;
  priority: number;
  status: "queued" | "claimed" | "started" | "done" | "escalated" | "cancelled" | "in_review" | "awaiting_input";
  owner: WireActor | null;
  leaseUntil: string | null;
  version: number;
  attempt: number;
  /** The holder's fence (owner calls, and the holder's reads); null for everyone else. */
  fence: string | null;
  failureCount: number;
  needsCheck: boolean;
  createdAt: string;
  updatedAt: string;
  handoff: { summary: string; next: string | null; artifacts: string[]; by: WireActor; at: string } | null;
  progress: { value: unknown; at: string } | null;
  /** Review before done: the completion waiting for review (in_review), or the one approved. */
  submission: { result: unknown; digest: string; by: WireActor; attempt: number; at: string } | null;
  /** The latest checkpoint, of whichever attempt. */
  checkpoint: { step: number; state: unknown; attempt: number; by: WireActor; at: string } | null;
  /** The holder's unacknowledged comments, on its claim, heartbeat and ack answers (docs/leases.md). */
  unread?: { eventId: string; by: WireActor; text: string; at: string }[];
}

export interface WireEvent {
  id: string;
  taskId: string | null;
  queue: string;
  type: string;
  actor: WireActor;
  payload: Record<string, unknown>;
  createdAt: string;
}

export interface WireError {
  code: ErrorCode;
  message: string;
  field?: string;
  task?: WireTask;
}

const TASK_KEYS = [
  "createdAt", "description", "failureCount", "handoff", "id", "leaseUntil", "needsCheck", "owner",
  "payload", "priority", "progress", "queue", "status", "title", "updatedAt", "version",
  // contract v1.1, the work graph
  "blockedBy", "dependsOn", "notBefore",
  // contract v1.2, attempts and fences
  "attempt", "fence", "openEffects",
  // contract v1.2, reservations
  "reserves",
  // contract v1.2, review before done
  "submission",
  // contract v1.2, budgets
  "budget", "spent",
  // contract v1.3, checkpoints
  "checkpoint",
].sort();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const STATUSES = ["queued", "claimed", "started", "done", "escalated", "cancelled", "in_review", "awaiting_input"];

export function expectActor(value: unknown): asserts value is WireActor {
  expect(value).toBeTypeOf("object");
  const actor = value as Record<string, unknown>;
  expect(Object.keys(actor).sort()).toEqual(["id", "kind", "name"]);
  expect(actor.id).toBeTypeOf("string");
  expect(actor.name).toBeTypeOf("string");
  expect(["user", "agent", "system"]).toContain(actor.kind);
}

/** Exactly the task object of docs/contract.md#the-task-object, each field of its documented type. */
export function expectTask(value: unknown): WireTask {
  expect(value).toBeTypeOf("object");
  const task = value as Record<string, unknown>;
  // `unread` is the holder's alone, on its claim, heartbeat and ack answers (docs/leases.md).
  expect(Object.keys(task).filter((k) => k !== "unread").sort()).toEqual(TASK_KEYS);
  if (task.unread !== undefined) expect(Array.isArray(task.unread)).toBe(true);
  expect(task.id).toMatch(/^[1-9][0-9]*$/);
  expect(task.queue).toBeTypeOf("string");
  expect(task.title).toBeTypeOf("string");
  expect(task.description).toBeTypeOf("string");
  expect(task.payload).not.toBeUndefined();
  expect(Number.isInteger(task.priority)).toBe(true);
  expect(STATUSES).toContain(task.status);
  if (task.owner !== null) expectActor(task.owner);
  if (task.leaseUntil !== null) expect(task.leaseUntil).toMatch(ISO);
  // owner and leaseUntil are null exactly when nobody holds the task.
  const held = task.status === "claimed" || task.status === "started";
  expect(task.leaseUntil !== null, `leaseUntil of a ${String(task.status)} task`).toBe(held);
  if (held || task.status === "queued") expect(task.owner !== null, `owner of a ${String(task.status)} task`).toBe(held);
  expect(Number.isInteger(task.version) && (task.version as number) >= 1).toBe(true);
  expect(Number.isInteger(task.failureCount) && (task.failureCount as number) >= 0).toBe(true);
  expect(task.needsCheck).toBeTypeOf("boolean");
  expect(Number.isInteger(task.attempt) && (task.attempt as number) >= 0).toBe(true);
  expect(Array.isArray(task.openEffects)).toBe(true);
  expect(Array.isArray(task.reserves) && (task.reserves as { resource: unknown; mode: unknown }[]).every((r) => typeof r.resource === "string" && (r.mode === "exclusive" || r.mode === "shared"))).toBe(true);
  expect(typeof task.spent === "number" && (task.spent as number) >= 0).toBe(true);
  if (task.budget !== null) expect(Object.keys(task.budget as object).sort()).toEqual(["limit", "unit"]);
  if (task.fence !== null) expect(task.fence).toMatch(/^cbf_[1-9]\d*_\d+_[A-Za-z0-9_-]{43}$/);
  for (const ids of [task.dependsOn, task.blockedBy]) {
    expect(Array.isArray(ids) && ids.every((id) => typeof id === "string" && /^[1-9][0-9]*$/.test(id))).toBe(true);
  }
  if (task.notBefore !== null) expect(task.notBefore).toMatch(ISO);
  expect(task.createdAt).toMatch(ISO);
  expect(task.updatedAt).toMatch(ISO);
  if (task.handoff !== null) {
    const handoff = task.handoff as Record<string, unknown>;
    expect(Object.keys(handoff).sort()).toEqual(["artifacts", "at", "by", "next", "summary"]);
    expect(handoff.summary).toBeTypeOf("string");
    expect(handoff.next === null || typeof handoff.next === "string").toBe(true);
    expect(Array.isArray(handoff.artifacts)).toBe(true);
    expectActor(handoff.by);
    expect(handoff.at).toMatch(ISO);
  }
  if (task.submission !== null) {
    const submission = task.submission as Record<string, unknown>;
    expect(Object.keys(submission).sort()).toEqual(["at", "attempt", "by", "digest", "result"]);
    expect(submission.digest).toMatch(/^[0-9a-f]{64}$/);
    expectActor(submission.by);
    expect(submission.at).toMatch(ISO);
  }
  if (task.checkpoint !== null) {
    const checkpoint = task.checkpoint as Record<string, unknown>;
    expect(Object.keys(checkpoint).sort()).toEqual(["at", "attempt", "by", "state", "step"]);
    expect(Number.isInteger(checkpoint.step) && (checkpoint.step as number) >= 1 && (checkpoint.step as number) <= 200).toBe(true);
    expect(Number.isInteger(checkpoint.attempt) && (checkpoint.attempt as number) >= 1).toBe(true);
    expectActor(checkpoint.by);
    expect(checkpoint.at).toMatch(ISO);
  }
  if (task.progress !== null) {
    const progress = task.progress as Record<string, unknown>;
    expect(Object.keys(progress).sort()).toEqual(["at", "value"]);
    expect(progress.at).toMatch(ISO);
    // progress belongs to the attempt running now (or, like the owner, the one that completed it)
    expect(held || task.status === "done", `progress on a ${String(task.status)} task`).toBe(true);
  }
  return task as unknown as WireTask;
}

export function expectEvent(value: unknown): WireEvent {
  const event = value as Record<string, unknown>;
  expect(Object.keys(event).sort()).toEqual(["actor", "createdAt", "id", "payload", "queue", "taskId", "type"]);
  expect(event.id).toMatch(/^[1-9][0-9]*$/);
  expect(event.taskId === null || /^[1-9][0-9]*$/.test(String(event.taskId))).toBe(true);
  expect(event.type).toBeTypeOf("string");
  expectActor(event.actor);
  expect(event.createdAt).toMatch(ISO);
  return event as unknown as WireEvent;
}

/** No stack trace, no file paths: what an error body must never carry. */
export function expectNoLeak(text: string): void {
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
  expect(text).not.toContain("node_modules");
  expect(text).not.toMatch(/\.(ts|js|mjs):\d+:\d+/);
}

/** The one error envelope: `{ error: { code, message, field?, task? } }` with a known code. */
export function expectErrorShape(res: HttpResult): WireError {
  expectNoLeak(res.text);
  expect(res.headers.get("content-type") ?? "", res.text).toMatch(/^application\/json/);
  expect(res.body, res.text).toBeTypeOf("object");
  const body = res.body as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["error"]);
  const error = body.error as Record<string, unknown>;
  for (const key of Object.keys(error)) expect(["code", "message", "field", "task"]).toContain(key);
  expect(ERROR_CODES).toContain(error.code);
  expect(error.message).toBeTypeOf("string");
  expect((error.message as string).length).toBeGreaterThan(0);
  if ("field" in error) expect(error.field).toBeTypeOf("string");
  if ("task" in error) expectTask(error.task);
  return error as unknown as WireError;
}

export function expectError(res: HttpResult, status: number, code: ErrorCode): WireError {
  expect({ status: res.status, body: res.body ?? res.text }).toMatchObject({ status, body: { error: { code } } });
  return expectErrorShape(res);
}

/** A 200/201 `{task}` body, checked and unwrapped. */
export function expectTaskResponse(res: HttpResult, status = 200): WireTask {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.body as object)).toEqual(["task"]);
  return expectTask((res.body as { task: unknown }).task);
}
