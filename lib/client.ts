// A typed client for Claimboard's agent API (API.md). It runs anywhere `fetch` does and
// imports nothing from the server: the wire types are written out here, and a test checks
// every route below against lib/http/endpoints.ts so the two cannot drift apart.

export type TaskStatus = "queued" | "claimed" | "started" | "done" | "escalated" | "cancelled";

export interface ActorRef {
  id: string;
  name: string;
  kind: "user" | "agent" | "system";
}

/** The latest hand-off note on a task (from a release or fail, or by the system after a lapse). */
export interface Handoff {
  summary: string;
  next: string | null;
  artifacts: string[];
  by: ActorRef;
  at: string;
}

/** What a release or fail tells the next claimant: summary 1..2000, next ≤ 2000, ≤ 20 artifacts of ≤ 500. */
export interface HandoffNote {
  summary: string;
  next?: string;
  artifacts?: string[];
}

/** API.md's task object; timestamps are ISO 8601 strings from the database clock. */
export interface Task {
  id: string;
  queue: string;
  title: string;
  description: string;
  payload: unknown;
  priority: number;
  status: TaskStatus;
  owner: ActorRef | null;
  leaseUntil: string | null;
  version: number;
  failureCount: number;
  needsCheck: boolean;
  /** The work graph: the tasks this one waits for, and those not done yet. */
  dependsOn: string[];
  blockedBy: string[];
  /** Not claimable before this time (scheduled, or the retry backoff after a failure). */
  notBefore: string | null;
  createdAt: string;
  updatedAt: string;
  handoff: Handoff | null;
  /** The current attempt's last heartbeat progress. */
  progress: { value: unknown; at: string } | null;
}

/** Why a task is or is not claimable by the caller now (GET /tasks/{id}/readiness). */
export interface Readiness {
  claimable: boolean;
  reasons: {
    code: "status" | "held" | "breaker_tripped" | "queue_archived" | "queue_paused" | "claimants" | "blocked" | "not_before" | "needs_check";
    message: string;
  }[];
  /** When only time (notBefore) is in the way, the moment it becomes claimable. */
  claimableAt: string | null;
}

export interface TaskEvent {
  id: string;
  taskId: string | null;
  queue: string;
  type: string;
  actor: ActorRef;
  payload: unknown;
  createdAt: string;
}

/** What an owner call needs of a task: a Task itself will do. */
export interface TaskRef {
  id: string;
  version: number;
}

export interface NewTask {
  title: string;
  description?: string;
  queue?: string;
  priority?: number;
  payload?: Record<string, unknown>;
  /** Up to 50 task ids this one waits for. */
  dependsOn?: string[];
  /** ISO 8601: not claimable before then. */
  notBefore?: string;
  /** 1..200 chars, unique per queue: a retried create answers the task the first one made. */
  idempotencyKey?: string;
}

/** What an edit may change (PATCH /tasks/{id}); name at least one. */
export interface TaskChanges {
  title?: string;
  description?: string;
  priority?: number;
  payload?: Record<string, unknown>;
}

/** The filters a list and the counts share (GET /tasks, GET /tasks/counts). */
export interface TaskFilterQuery {
  queue?: string;
  /** `me`: the caller's tasks; `none`: tasks nobody holds. */
  owner?: "me" | "none";
  needsCheck?: "true" | "false";
  /** Full-text search over title, description and payload (1..200 characters; the last word is a prefix). */
  q?: string;
  minPriority?: number;
  /** Tasks created at least this many seconds ago. */
  olderThan?: number;
}

export interface TaskCounts {
  statuses: Record<TaskStatus, number>;
  queues: { queue: string; statuses: Record<TaskStatus, number> }[];
  /** A count of cap + 1 means "more than cap". */
  cap: number;
}

export interface ListTasksQuery extends TaskFilterQuery {
  status?: TaskStatus;
  /** v1's order; give this or `sort`, not both. */
  order?: "id" | "newest" | "priority";
  /** priority (claim order), created (newest first) or updated (most recently changed first). */
  sort?: "priority" | "created" | "updated";
  /** Tasks that depend on this task id. */
  dependsOn?: string;
  limit?: number;
  cursor?: string;
}

/** A queue's settings, as a create sets them and PATCH /queues/{name} changes them. */
export interface QueueSettings {
  description?: string;
  leaseSeconds?: number;
  maxFailures?: number;
  expiryThreshold?: number;
  expiryWindowSeconds?: number;
  retryDelaySeconds?: number;
  claimants?: "anyone" | "people" | "agents";
  /** null lifts the ceiling. */
  maxAttemptSeconds?: number | null;
}

/** A queue as GET /queues shows it (supervisor tokens). */
export interface Queue extends Required<QueueSettings> {
  name: string;
  paused: boolean;
  pausedAt: string | null;
  pausedBy: string | null;
  breakerTrippedAt: string | null;
  breakerReason: string | null;
  archivedAt: string | null;
  archivedBy: string | null;
  /** Tasks in each status now; cap + 1 means more than the list's `cap`. */
  counts: Record<TaskStatus, number>;
  throughput: { lastHour: number; last24Hours: number };
  createdAt: string;
}

export interface ClaimOptions {
  queue?: string;
  leaseSeconds?: number;
  /** Claim and start in one transaction (a needs_check task comes back claimed, not started). */
  start?: boolean;
  /** Leave needs_check tasks to claimers that confirm checks. */
  skipNeedsCheck?: boolean;
}

/** One item of completeMany's answer, in the order given. */
export type CompletionResult =
  | { id: string; ok: true; task: Task }
  | { id: string; ok: false; error: { code: string; message: string; task?: Task } };

export interface Health {
  ok: boolean;
  db: "up" | "down";
}

/** Every route this client calls, under /api/v1 (checked against the server's endpoint table). */
export const clientRoutes = {
  createTask: { method: "POST", path: "/tasks" },
  listTasks: { method: "GET", path: "/tasks" },
  countTasks: { method: "GET", path: "/tasks/counts" },
  getTask: { method: "GET", path: "/tasks/{id}" },
  listTaskEvents: { method: "GET", path: "/tasks/{id}/events" },
  claimNext: { method: "POST", path: "/claims" },
  claimBatch: { method: "POST", path: "/claims/batch" },
  claimTask: { method: "POST", path: "/tasks/{id}/claim" },
  start: { method: "POST", path: "/tasks/{id}/start" },
  heartbeat: { method: "POST", path: "/tasks/{id}/heartbeat" },
  recordSideEffect: { method: "POST", path: "/tasks/{id}/side-effects" },
  release: { method: "POST", path: "/tasks/{id}/release" },
  complete: { method: "POST", path: "/tasks/{id}/complete" },
  completeMany: { method: "POST", path: "/completions" },
  fail: { method: "POST", path: "/tasks/{id}/fail" },
  addDependencies: { method: "POST", path: "/tasks/{id}/dependencies" },
  taskReadiness: { method: "GET", path: "/tasks/{id}/readiness" },
  editTask: { method: "PATCH", path: "/tasks/{id}" },
  addComment: { method: "POST", path: "/tasks/{id}/comments" },
  health: { method: "GET", path: "/health" },
  requeue: { method: "POST", path: "/tasks/{id}/requeue" },
  resolve: { method: "POST", path: "/tasks/{id}/resolve" },
  cancel: { method: "POST", path: "/tasks/{id}/cancel" },
  forceRelease: { method: "POST", path: "/tasks/{id}/force-release" },
  listQueues: { method: "GET", path: "/queues" },
  createQueue: { method: "POST", path: "/queues" },
  updateQueue: { method: "PATCH", path: "/queues/{name}" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PATCH"; path: string }>;

type RouteName = keyof typeof clientRoutes;

/**
 * Any answer other than the documented success. `code` is API.md's error code; a request
 * that never got an answer is status 0, code "network_error".
 */
export class ClaimboardApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The task as it is now, where the server sent one (e.g. on version_conflict). */
  readonly task?: Task;
  /** The field an invalid_request names, dotted. */
  readonly field?: string;
  /** Seconds to wait before retrying, from Retry-After (busy, rate_limited, unavailable). */
  readonly retryAfter?: number;

  constructor(init: { status: number; code: string; message: string; task?: Task; field?: string; retryAfter?: number; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ClaimboardApiError";
    this.status = init.status;
    this.code = init.code;
    if (init.task) this.task = init.task;
    if (init.field) this.field = init.field;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }
}

export interface ClientOptions {
  /** The server, e.g. http://localhost:3000 (with or without /api/v1). */
  baseUrl: string;
  /** A bearer token (cb_…); health needs none. */
  token?: string;
  fetch?: typeof fetch;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /**
   * Sent as the Claimboard-Instance header and recorded in the events this client's calls
   * write, so one process is told apart from another on the same token. Default: host:pid
   * where a process exists (Node), none elsewhere; "" sends none.
   */
  instance?: string;
}

/** The request header naming the calling process. */
export const INSTANCE_HEADER = "Claimboard-Instance";

function defaultInstance(): string | undefined {
  const proc = (globalThis as { process?: { pid?: number; env?: Record<string, string | undefined> } }).process;
  if (!proc?.pid) return undefined;
  const host = proc.env?.HOSTNAME ?? proc.env?.COMPUTERNAME ?? "host";
  return `${host}:${proc.pid}`.replace(/[^\x21-\x7e]/g, "_").slice(0, 200);
}

type Query = Record<string, string | number | undefined>;

export class ClaimboardClient {
  private readonly base: string;
  private readonly token?: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  /** The Claimboard-Instance this client sends, if any. */
  readonly instance?: string;

  constructor(options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, "").replace(/\/api\/v1$/, "") + "/api/v1";
    this.token = options.token;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const instance = options.instance ?? defaultInstance();
    if (instance) this.instance = instance;
  }

  async createTask(input: NewTask): Promise<Task> {
    return (await this.call<{ task: Task }>("createTask", { body: input })).task;
  }

  async listTasks(query: ListTasksQuery = {}): Promise<{ tasks: Task[]; nextCursor: string | null }> {
    return this.call("listTasks", { query: { ...query } });
  }

  /** Live counts per status for the filter, and per queue and status (each capped: see `cap`). */
  async countTasks(query: TaskFilterQuery = {}): Promise<TaskCounts> {
    return this.call("countTasks", { query: { ...query } });
  }

  async getTask(id: string): Promise<Task> {
    return (await this.call<{ task: Task }>("getTask", { id })).task;
  }

  async listTaskEvents(id: string, query: { after?: string; limit?: number } = {}): Promise<{ events: TaskEvent[]; nextCursor: string | null }> {
    return this.call("listTaskEvents", { id, query });
  }

  /** The next claimable task of the queue, or null when there is none (204). */
  async claimNext(options: ClaimOptions = {}): Promise<Task | null> {
    return (await this.call<{ task: Task } | null>("claimNext", { body: options }))?.task ?? null;
  }

  /** Up to `limit` tasks (1..100) in one transaction; possibly none. */
  async claimBatch(options: ClaimOptions & { limit: number }): Promise<Task[]> {
    return (await this.call<{ tasks: Task[] }>("claimBatch", { body: options })).tasks;
  }

  async claimTask(task: TaskRef): Promise<Task> {
    return this.ownerCall("claimTask", task, {});
  }

  async start(task: TaskRef, options: { confirmCheck?: boolean } = {}): Promise<Task> {
    return this.ownerCall("start", task, options);
  }

  /** Renews the lease; the version stays the same. */
  async heartbeat(task: TaskRef, options: { progress?: unknown } = {}): Promise<Task> {
    return this.ownerCall("heartbeat", task, options);
  }

  async recordSideEffect(task: TaskRef, description: string): Promise<Task> {
    return this.ownerCall("recordSideEffect", task, { description });
  }

  /** Gives the task back; a hand-off note tells the next claimant what was done and what comes next. */
  async release(task: TaskRef, options: { handoff?: HandoffNote } = {}): Promise<Task> {
    return this.ownerCall("release", task, options);
  }

  async complete(task: TaskRef, options: { result?: unknown } = {}): Promise<Task> {
    return this.ownerCall("complete", task, options);
  }

  /**
   * The agent loop's one request: completes the task and claims (with `start`, starts) the
   * next of `next.queue` in the same transaction. `next` is null when nothing is claimable;
   * a refused completion claims nothing.
   */
  async completeAndClaimNext(task: TaskRef, next: ClaimOptions, options: { result?: unknown } = {}): Promise<{ task: Task; next: Task | null }> {
    const answer = await this.call<{ task: Task; next?: Task | null }>("complete", { id: task.id, body: { ...options, next, version: task.version } });
    return { task: answer.task, next: answer.next ?? null };
  }

  /** Up to 100 completions in one transaction; each item succeeds or is refused on its own. */
  async completeMany(items: (TaskRef & { result?: unknown })[]): Promise<CompletionResult[]> {
    const tasks = items.map(({ id, version, result }) => ({ id, version, ...(result !== undefined ? { result } : {}) }));
    return (await this.call<{ results: CompletionResult[] }>("completeMany", { body: { tasks } })).results;
  }

  /** Status comes back queued, or escalated on the queue's last strike. */
  async fail(task: TaskRef, reason: string, options: { handoff?: HandoffNote } = {}): Promise<Task> {
    return this.ownerCall("fail", task, { reason, ...options });
  }

  /** Adds dependencies to a queued task; a cycle is refused (dependency_cycle). */
  async addDependencies(task: TaskRef, dependsOn: string[]): Promise<Task> {
    return this.ownerCall("addDependencies", task, { dependsOn });
  }

  /** For this token: can it claim the task now, every reason not, and when time alone is in the way. */
  async readiness(id: string): Promise<Readiness> {
    return this.call("taskReadiness", { id });
  }

  /**
   * Edits a queued or escalated task at the version you last saw (version + 1, an `edited`
   * event). A stale version: version_conflict, with the task as it is now in `error.task`.
   */
  async editTask(task: TaskRef, changes: TaskChanges): Promise<Task> {
    return this.ownerCall("editTask", task, changes);
  }

  /** A comment (1..4000 characters) on any task; no status or version change. */
  async addComment(id: string, body: string): Promise<TaskEvent> {
    return (await this.call<{ event: TaskEvent }>("addComment", { id, body: { body } })).event;
  }

  // Supervisor tokens only: the inbox's decisions and the queues (docs/api.md).

  /** An escalated task back in its queue, failures reset. */
  async requeue(task: TaskRef, reason?: string): Promise<Task> {
    return this.ownerCall("requeue", task, { reason });
  }

  /** An escalated task settled as done by hand. */
  async resolve(task: TaskRef, reason?: string): Promise<Task> {
    return this.ownerCall("resolve", task, { reason });
  }

  /** A queued or escalated task dropped for good (its dependents are escalated). */
  async cancel(task: TaskRef, reason?: string): Promise<Task> {
    return this.ownerCall("cancel", task, { reason });
  }

  /** A held task taken back to queued; `reason` becomes its hand-off note. */
  async forceRelease(task: TaskRef, reason?: string): Promise<Task> {
    return this.ownerCall("forceRelease", task, { reason });
  }

  /** Every queue, archived ones too, with live counts and throughput. */
  async listQueues(): Promise<{ queues: Queue[]; cap: number }> {
    return this.call("listQueues", {});
  }

  async createQueue(input: QueueSettings & { name: string; paused?: boolean }): Promise<Queue> {
    return (await this.call<{ queue: Queue }>("createQueue", { body: input })).queue;
  }

  /** Settings, description, paused and archived at once (name at least one). */
  async updateQueue(name: string, changes: QueueSettings & { paused?: boolean; archived?: boolean }): Promise<Queue> {
    return (await this.call<{ queue: Queue }>("updateQueue", { id: name, body: changes })).queue;
  }

  /** 200 or 503, both with `{ok, db}`: a down database is an answer, not an error. */
  async health(): Promise<Health> {
    return this.call("health", { accept: [503] });
  }

  private async ownerCall(route: RouteName, task: TaskRef, body: object): Promise<Task> {
    return (await this.call<{ task: Task }>(route, { id: task.id, body: { ...body, version: task.version } })).task;
  }

  private async call<T>(route: RouteName, options: { id?: string; query?: Query; body?: unknown; accept?: number[] }): Promise<T> {
    const { method, path } = clientRoutes[route];
    const url = new URL(this.base + path.replace(/\{\w+\}/, encodeURIComponent(options.id ?? "")));
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (this.instance) headers[INSTANCE_HEADER] = this.instance;
    if (options.body !== undefined) headers["Content-Type"] = "application/json";

    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (cause) {
      // undici says "fetch failed" and keeps the reason (ECONNREFUSED, …) one level down.
      const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
      const reason = inner instanceof Error ? inner.message : String(inner);
      throw new ClaimboardApiError({ status: 0, code: "network_error", message: `${method} ${url.pathname}: ${reason}`, cause });
    }
    if (response.status === 204) return null as T;
    const text = await response.text().catch(() => "");
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (response.ok || options.accept?.includes(response.status)) {
      if (json === undefined) {
        throw new ClaimboardApiError({ status: response.status, code: "unexpected_response", message: `${method} ${url.pathname}: the answer is not JSON` });
      }
      return json as T;
    }
    throw toApiError(response, json, `${method} ${url.pathname}`);
  }
}

function toApiError(response: Response, json: unknown, call: string): ClaimboardApiError {
  const error = (json as { error?: { code?: unknown; message?: unknown; task?: Task; field?: unknown } } | undefined)?.error;
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
  return new ClaimboardApiError({
    status: response.status,
    code: typeof error?.code === "string" ? error.code : `http_${response.status}`,
    message: typeof error?.message === "string" ? error.message : `${call} answered ${response.status} ${response.statusText}`.trim(),
    task: error?.task,
    field: typeof error?.field === "string" ? error.field : undefined,
    retryAfter,
  });
}

/** Retry-After as seconds: a number of seconds, or an HTTP date. */
function parseRetryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
