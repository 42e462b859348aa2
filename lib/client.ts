// A typed client for Claimboard's agent API (docs/contract.md). It runs anywhere `fetch` does: of the
// server it imports only the API's contract (lib/http/endpoints.ts, wire.ts: zod schemas),
// never server-only code or the database. Its routes, and the types it takes and answers,
// are the registry's (lib/client/routes.ts, types.ts).

import { INSTANCE_HEADER } from "@/lib/http/endpoints";
import { ClaimboardApiError } from "./client/errors";
import { defaultInstance, request, type RequestOptions } from "./client/transport";
import { clientRoutes, type EndpointOf, type RouteName } from "./client/routes";
import type {
  Answer, Body, CallOptions, Checkpoint, ClaimOp, ClaimToken, ClaimOptions, CompletionResult, Effect, FenceVerdict, Health, Question, ListTasksQuery, NewTask, Query,
  HeldReservation, Queue, Readiness, Task, TaskChanges, TaskCounts, TaskEvent, TaskFilterQuery, TaskRef, Schedule, Webhook, WebhookDelivery,
} from "./client/types";

export type * from "./client/types";
export { ClaimboardApiError, clientRoutes };
/** @public The header a client names its process in (sent by lib/client/transport.ts). */
export { INSTANCE_HEADER };

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

/** A held request's own time on top of the usual timeout: the server answers by the wait's end. */
const waitTimeout = (wait: number | undefined) => (wait ? (wait + 30) * 1000 : undefined);

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
    return (await this.call("createTask", { body: input })).task;
  }

  async listTasks(query: ListTasksQuery = {}): Promise<Answer<"listTasks">> {
    return this.call("listTasks", { query: { ...query } });
  }

  /** Live counts per status for the filter, and per queue and status (each capped: see `cap`). */
  async countTasks(query: TaskFilterQuery = {}): Promise<TaskCounts> {
    return this.call("countTasks", { query: { ...query } });
  }

  async getTask(id: string): Promise<Task> {
    return (await this.call("getTask", { id })).task;
  }

  async listTaskEvents(id: string, query: Query<"listTaskEvents"> = {}): Promise<Answer<"listTaskEvents">> {
    return this.call("listTaskEvents", { id, query });
  }

  /**
   * The next claimable task of the queue, or null when there is none (204). With `wait`
   * (seconds, 0..60) the server holds the request until a task is claimable or the wait
   * ends (then null): the way to wait for work without polling.
   */
  async claimNext(options: ClaimOptions = {}): Promise<Task | null> {
    return ((await this.call("claimNext", { body: options, timeoutMs: waitTimeout(options.wait) })) as Answer<"claimNext"> | null)?.task ?? null;
  }

  /** Up to `limit` tasks (1..100) in one transaction; possibly none (also at the end of a `wait`). */
  async claimBatch(options: Body<"claimBatch">): Promise<Task[]> {
    return ((await this.call("claimBatch", { body: options, timeoutMs: waitTimeout(options.wait) })) as Answer<"claimBatch"> | null)?.tasks ?? [];
  }

  async claimTask(task: TaskRef): Promise<Task> {
    return this.ownerCall("claimTask", task, {});
  }

  async start(task: TaskRef, options: CallOptions<"startTask"> = {}): Promise<Task> {
    return this.ownerCall("start", task, options);
  }

  /** Renews the lease; the version stays the same. */
  async heartbeat(task: TaskRef, options: CallOptions<"heartbeat"> = {}): Promise<Task> {
    return this.ownerCall("heartbeat", task, options);
  }

  async recordSideEffect(task: TaskRef, description: string): Promise<Task> {
    return this.ownerCall("recordSideEffect", task, { description });
  }

  /** Gives the task back; a hand-off note tells the next claimant what was done and what comes next. */
  async release(task: TaskRef, options: CallOptions<"releaseTask"> = {}): Promise<Task> {
    return this.ownerCall("release", task, options);
  }

  async complete(task: TaskRef, options: Omit<CallOptions<"completeTask">, "next"> = {}): Promise<Task> {
    return this.ownerCall("complete", task, options);
  }

  /**
   * The agent loop's one request: completes the task and claims (with `start`, starts) the
   * next of `next.queue` in the same transaction. `next` is null when nothing is claimable;
   * a refused completion claims nothing.
   */
  async completeAndClaimNext(task: TaskRef, next: ClaimOptions, options: Omit<CallOptions<"completeTask">, "next"> = {}): Promise<{ task: Task; next: Task | null }> {
    const answer = await this.call("complete", { id: task.id, body: { ...options, next, version: task.version }, timeoutMs: waitTimeout(next.wait) });
    return { task: answer.task, next: answer.next ?? null };
  }

  /** Supervisor: every agent and what it does now (working, waiting, idle or gone); observer and supervisor tokens apart. */
  async getFleet(): Promise<Answer<"getFleet">> {
    return this.call("getFleet", {});
  }

  /** Up to 100 completions in one transaction; each item succeeds or is refused on its own. */
  async completeMany(items: Body<"completions">["tasks"]): Promise<CompletionResult[]> {
    const tasks = items.map(({ id, version, result }) => ({ id, version, ...(result !== undefined ? { result } : {}) }));
    return (await this.call("completeMany", { body: { tasks } })).results;
  }

  /** Status comes back queued, or escalated on the queue's last strike. */
  async fail(task: TaskRef, reason: string, options: Omit<CallOptions<"failTask">, "reason"> = {}): Promise<Task> {
    return this.ownerCall("fail", task, { reason, ...options });
  }

  /**
   * Decides an in_review task's submission: approve (done) or reject (a strike, back to the
   * queue with the note as the hand-off). `digest` is the submission's you read; another
   * answers submission_changed, and the submitter or anyone who held the task: self_review.
   */
  async review(task: TaskRef, decision: "approve" | "reject", digest: string, options: { note?: string } = {}): Promise<Task> {
    return this.ownerCall("review", task, { decision, digest, ...options });
  }

  /** Removes one dependency from a queued task (its creator, last holder or a supervisor). */
  async removeDependency(task: TaskRef, dependency: string): Promise<Task> {
    return ((await this.call("removeDependency", { id: task.id, dep: dependency, body: { version: task.version } })) as { task: Task }).task;
  }

  /** Adds dependencies to a queued task; a cycle is refused (dependency_cycle). */
  async addDependencies(task: TaskRef, dependsOn: string[]): Promise<Task> {
    return this.ownerCall("addDependencies", task, { dependsOn });
  }

  /** Why the task is held, or not: state, holder, renewals, progress and reason codes (docs/leases.md). */
  async lease(id: string): Promise<Answer<"taskLease">> {
    return this.call("taskLease", { id });
  }

  /** The holder acknowledges others' comments up to `eventId` (an `unread` item's): complete and new effect intents wait for it. */
  async ack(task: TaskRef, eventId: string): Promise<Task> {
    return this.ownerCall("ack", task, { eventId });
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
    return (await this.call("addComment", { id, body: { body } })).event;
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

  /** Supervisor: raise the budget of a task parked on it by `add`; its owner goes on (docs/budgets.md). */
  async raiseBudget(task: TaskRef, add: number): Promise<Task> {
    return this.ownerCall("raiseBudget", task, { add });
  }

  /** Supervisor: an agent token's monthly cap (null lifts it). */
  async setTokenBudget(name: string, monthlyBudget: { limit: number; unit: string } | null): Promise<Answer<"setTokenBudget">> {
    return this.call("setTokenBudget", { id: name, body: { monthlyBudget } });
  }

  /** A held task taken back to queued; `reason` becomes its hand-off note. */
  async forceRelease(task: TaskRef, reason?: string): Promise<Task> {
    return this.ownerCall("forceRelease", task, { reason });
  }

  /** Supervisor: what a task parked on a question reserves, released (it stays parked). */
  async releaseReservations(task: TaskRef, reason?: string): Promise<Task> {
    return this.ownerCall("releaseReservations", task, { reason });
  }

  /** Every queue, archived ones too, with live counts and throughput. */
  async listQueues(): Promise<{ queues: Queue[]; cap: number }> {
    return this.call("listQueues", {});
  }

  async createQueue(input: Body<"createQueue">): Promise<Queue> {
    return (await this.call("createQueue", { body: input })).queue;
  }

  /** Settings, description, paused and archived at once (name at least one). */
  async updateQueue(name: string, changes: Body<"updateQueue">): Promise<Queue> {
    return (await this.call("updateQueue", { id: name, body: changes })).queue;
  }

  /** A schedule: at each occurrence of `cron` (in `timezone`), a task in `queue`. */
  async createSchedule(input: Body<"createSchedule">): Promise<Schedule> {
    return (await this.call("createSchedule", { body: input })).schedule;
  }

  async listSchedules(): Promise<Schedule[]> {
    return (await this.call("listSchedules", {})).schedules;
  }

  /** Changes, `paused: true|false` to pause or resume. */
  async updateSchedule(id: string, changes: Body<"updateSchedule">): Promise<Schedule> {
    return (await this.call("updateSchedule", { id, body: changes })).schedule;
  }

  async deleteSchedule(id: string): Promise<void> {
    await this.call("deleteSchedule", { id });
  }

  /** Takes a schedule over: it acts with this token's authority (one paused because its maker's ended ticks again). */
  async adoptSchedule(id: string): Promise<Schedule> {
    return (await this.call("adoptSchedule", { id })).schedule;
  }

  /** A webhook for `events` (and `queues`); the answer's `secret` (whsec_…) is shown this once. */
  async createWebhook(input: Body<"createWebhook">): Promise<{ webhook: Webhook; secret: string }> {
    return this.call("createWebhook", { body: input });
  }

  /** Every reservation held now, by resource: what claim-next will not hand out beside it. */
  async listReservations(): Promise<HeldReservation[]> {
    return (await this.call("listReservations", {})).reservations;
  }

  /** What waits for this token's actor: counts and items of what the engine would let it do now (docs/contract.md). */
  async attention(): Promise<Answer<"attention">> {
    return this.call("attention", {});
  }

  async listWebhooks(): Promise<Webhook[]> {
    return (await this.call("listWebhooks", {})).webhooks;
  }

  async deleteWebhook(id: string): Promise<void> {
    await this.call("deleteWebhook", { id });
  }

  /** Takes a webhook over: it acts with this token's authority (one paused because its maker's ended delivers again). */
  async adoptWebhook(id: string): Promise<Webhook> {
    return (await this.call("adoptWebhook", { id })).webhook;
  }

  /** A webhook's delivery log, newest first; `before` is the previous page's nextCursor. */
  async listWebhookDeliveries(id: string, query: { before?: string; limit?: number } = {}): Promise<{ deliveries: WebhookDelivery[]; nextCursor: string | null }> {
    return this.call("listWebhookDeliveries", { id, query });
  }

  /**
   * Records an intent before an external act (docs/effects.md): send `effect.idempotencyKey`
   * downstream; the same key again answers the existing effect. Then resolveEffect after the act.
   */
  async recordEffect(task: TaskRef, effect: Omit<Body<"recordEffect">, "version">): Promise<Answer<"recordEffect">> {
    return this.call("recordEffect", { id: task.id, body: { ...effect, version: task.version } });
  }

  /** A task's whole effect ledger, oldest first. */
  async listEffects(id: string): Promise<Effect[]> {
    return (await this.call("listEffects", { id })).effects;
  }

  /** Records how far the attempt got (docs/checkpoints.md): step 1..200 and any JSON state; a successor's claim carries the latest. */
  async checkpoint(task: TaskRef, step: number, state?: unknown): Promise<Answer<"recordCheckpoint">> {
    return this.call("recordCheckpoint", { id: task.id, body: { version: task.version, step, ...(state === undefined ? {} : { state }) } as Body<"recordCheckpoint"> });
  }

  async listCheckpoints(id: string): Promise<Checkpoint[]> {
    return (await this.call("listCheckpoints", { id })).checkpoints;
  }

  /** applied or failed, with what downstream said (externalRef) — an unknown one by the holder or a supervisor. */
  async resolveEffect(task: TaskRef, effectId: string, resolution: Omit<Body<"resolveEffect">, "version">): Promise<Answer<"resolveEffect">> {
    return this.call("resolveEffect", { id: task.id, effectId, body: { ...resolution, version: task.version } });
  }

  /**
   * Asks a person (docs/questions.md): the task becomes awaiting_input, its lease parked (no
   * heartbeat needed) until the answer, which returns it to started with a fresh lease. Then
   * getQuestion(task.id, question.id, {wait}) for the answer.
   */
  async askQuestion(task: TaskRef, ask: Omit<Body<"askQuestion">, "version">): Promise<Answer<"askQuestion">> {
    return this.call("askQuestion", { id: task.id, body: { ...ask, version: task.version } });
  }

  /** One question; `wait` (0..60 s) long-polls until it is answered or expires, or the wait ends. */
  async getQuestion(taskId: string, questionId: string, options: { wait?: number } = {}): Promise<Question> {
    return (await this.call("getQuestion", { id: taskId, questionId, query: { wait: options.wait }, timeoutMs: ((options.wait ?? 0) + 30) * 1000 })).question;
  }

  /** A person's (or a supervisor token's) answer: the task returns to started for its owner. */
  async answerQuestion(taskId: string, questionId: string, answer: Body<"answerQuestion">): Promise<Answer<"answerQuestion">> {
    return this.call("answerQuestion", { id: taskId, questionId, body: answer });
  }

  /**
   * What a downstream system asks before it acts for an agent (docs/fences.md): does the
   * fence's attempt still hold its task? `current` true only while it does; `reason` says why
   * not. A fence this board did not issue: ClaimboardApiError 400 invalid_request (field fence).
   */
  async verifyFence(fence: string): Promise<FenceVerdict> {
    return this.call("verifyFence", { body: { fence } });
  }

  /**
   * Mints a claim token (cbc_…) for the task you hold, bound to its current attempt, for the
   * ops named (default all; a claim token may narrow itself, never widen). Hand it to a
   * sub-agent: `new ClaimboardClient({ baseUrl, token: claimToken })` then acts as you on this
   * task only, until the attempt ends (then 401 claim_ended). Shown once; keep it out of logs.
   */
  async createClaimToken(task: TaskRef, ops?: ClaimOp[]): Promise<ClaimToken> {
    return this.call("createClaimToken", { id: task.id, body: { version: task.version, ...(ops ? { ops } : {}) } });
  }

  /** 200 or 503, both with `{ok, db}`: a down database is an answer, not an error. */
  async health(): Promise<Health> {
    return this.call("health", { accept: [503] });
  }

  private async ownerCall(route: RouteName, task: TaskRef, body: object): Promise<Task> {
    return ((await this.call(route, { id: task.id, body: { ...body, version: task.version } })) as { task: Task }).task;
  }

  private async call<R extends RouteName>(route: R, options: RequestOptions): Promise<Answer<EndpointOf<R>>> {
    return request({ base: this.base, token: this.token, fetchImpl: this.fetchImpl, timeoutMs: this.timeoutMs, instance: this.instance }, route, options);
  }
}
