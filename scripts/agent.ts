// `npm run agent -- --queue Q --token T`: the reference agent. It claims the next task
// (claim and start in one call), keeps the lease alive with heartbeats at a third of the
// lease, simulates the work, completes or fails the task, and repeats. With nothing to do it
// waits in the server (a claim with `wait`, one request at a time: docs/claiming.md "Waiting
// for work"); it backs off only when the server fails, is busy or asks it to (429, 503).
// One log line per action on stdout.
import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { ClaimboardApiError, ClaimboardClient, type ClaimOptions, type Task } from "../lib/client";
import { renewAfterMs } from "../lib/cadence";
import { LIMITS } from "../lib/limits";
import { callDone, Downstream, intendCall } from "./agent-effects";
import { askFirst } from "./agent-ask";
import { workInSteps } from "./agent-steps";
import { afterReading, tellUnread } from "./agent-input";

const USAGE = `usage: CLAIMBOARD_TOKEN=cb_… npm run agent -- --queue Q [options]

  --queue Q            queue to work (default: default)
  --token T            bearer token (default: CLAIMBOARD_TOKEN; prefer it: npm echoes arguments)
  --url URL            server (default: CLAIMBOARD_URL, else http://localhost:$PORT, else :3000)
  --batch N            claim N tasks at a time (1..100), work them together, complete them in one call
  --confirm-checks     take needs_check tasks (confirm the check); otherwise release them
  --lease-seconds S    lease to ask for, 5..3600 (default: the queue's)
  --work-ms N          simulated work per task (default 2000)
  --fail-rate R        fraction of tasks to fail instead of complete, 0..1 (default 0)
  --effects            record the simulated call in the effect ledger (intent before, applied after)
  --ask "QUESTION"     ask a person before working each task, wait for the answer and print it
  --spend N            report N spent (in the task's budget unit) with every heartbeat and the
                       completion; at the task's budget it waits, parked, until a supervisor raises it
  --downstream FILE    with --effects: the simulated call applies its idempotency key to FILE (one a
                       line, once per key), and an unknown effect is resolved by looking its key up there
  --scoped             after each claim, mint a claim token (cbc_) for the task and do the work with a
                       client of its own on that token only: it can touch nothing but that task, and
                       nothing once the attempt ended (claim_ended)
  --steps N            do each task's work in N steps (1..200), checkpointing each; a task handed with a
                       checkpoint (an earlier attempt's) resumes after its step
  --wait S             wait up to S seconds (0..60) in the server for a task when none is claimable,
                       and again after each such wait; 0 polls with a 1–10 s backoff instead
                       (default 30; with --once, 0)
  --once               handle at most one task, then exit (also when there is none)
  --max-tasks N        exit after completing or failing N tasks`;

/**
 * Codes that mean the task is no longer ours to work on: stop at once. Any other 4xx is fatal.
 * attempt_limit: the queue's attempt ceiling is reached; the lapse that follows is a strike.
 * no_progress: renewals without progress reached the queue's limit; the attempt failed.
 */
const LOST = new Set(["lease_expired", "not_owner", "version_conflict", "invalid_transition", "not_found", "attempt_limit", "claim_ended", "no_progress"]);
const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 10_000;
/** How long each claim waits in the server for work (--wait): an idle agent costs one held request. */
const DEFAULT_WAIT_SECONDS = 30;
/** A wait answered sooner than this with nothing (a server stopping) is not waited again at once: backoff. */
const EARLY_EMPTY_MS = 1000;

class UsageError extends Error {}

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      queue: { type: "string", default: "default" },
      token: { type: "string" },
      url: { type: "string" },
      "confirm-checks": { type: "boolean", default: false },
      "lease-seconds": { type: "string" },
      "work-ms": { type: "string", default: "2000" },
      "fail-rate": { type: "string", default: "0" },
      effects: { type: "boolean", default: false },
      ask: { type: "string" },
      spend: { type: "string" },
      scoped: { type: "boolean", default: false },
      downstream: { type: "string" },
      once: { type: "boolean", default: false },
      "max-tasks": { type: "string" },
      batch: { type: "string" },
      steps: { type: "string" },
      wait: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const number = (name: string, value: string | undefined, min: number, max: number, integer = true) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
      throw new UsageError(`--${name} must be ${integer ? "a whole number" : "a number"} from ${min} to ${max}, not ${JSON.stringify(value)}`);
    }
    return n;
  };
  const token = values.token ?? process.env.CLAIMBOARD_TOKEN;
  if (!values.help && !token) throw new UsageError("a token is required: --token cb_… or CLAIMBOARD_TOKEN");
  const url = values.url ?? (process.env.CLAIMBOARD_URL || `http://localhost:${process.env.PORT || 3000}`);
  if (!URL.canParse(url)) throw new UsageError(`--url is not a URL: ${JSON.stringify(url)}`);
  if (values.scoped && values.batch !== undefined) throw new UsageError("--scoped works one task at a time: drop --batch");
  if (values.steps !== undefined && (values.batch !== undefined || values.effects)) throw new UsageError("--steps works one task at a time without --effects: drop --batch and --effects");
  if (values.downstream !== undefined && !values.effects) throw new UsageError("--downstream works with --effects: add --effects, or drop --downstream");
  if (values.ask !== undefined && (values.ask.trim() === "" || values.ask.length > LIMITS.question)) {
    throw new UsageError(`--ask must be a question of 1 to ${LIMITS.question} characters`);
  }
  return {
    help: values.help,
    queue: values.queue,
    token: token ?? "",
    url,
    // --effects resolves what a lapsed attempt left unknown itself, so it takes needs_check tasks.
    confirmChecks: values["confirm-checks"] || values.effects,
    effects: values.effects,
    ask: values.ask,
    spend: number("spend", values.spend, 0, 1e12, false),
    scoped: values.scoped,
    downstream: new Downstream(values.downstream),
    leaseSeconds: number("lease-seconds", values["lease-seconds"], 5, 3600),
    workMs: number("work-ms", values["work-ms"], 0, 86_400_000)!,
    failRate: number("fail-rate", values["fail-rate"], 0, 1, false)!,
    maxTasks: values.once ? 1 : number("max-tasks", values["max-tasks"], 1, Number.MAX_SAFE_INTEGER),
    batch: number("batch", values.batch, 1, 100),
    steps: number("steps", values.steps, LIMITS.checkpointStep.min, LIMITS.checkpointStep.max),
    once: values.once,
    wait: number("wait", values.wait, 0, LIMITS.claimWaitSeconds) ?? (values.once ? 0 : DEFAULT_WAIT_SECONDS),
  };
}

type Options = ReturnType<typeof options>;

const log = (line: string) => console.log(line);
/** What became of a completion: done, or waiting for a reviewer (the queue reviews agents' work). */
const finishedLine = (task: Task) => `${task.status === "in_review" ? "submitted for review" : "completed"} ${task.id} v${task.version}`;

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
const sleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }).catch(() => {});

const isApiError = (error: unknown): error is ClaimboardApiError => error instanceof ClaimboardApiError;
const describe = (error: unknown) => (isApiError(error) ? `${error.code}: ${error.message}` : String(error));
const transient = (error: unknown) =>
  isApiError(error) && (error.status === 0 || error.status >= 500 || error.code === "busy" || error.code === "rate_limited");

/** The lease left as of the server's answer, in ms (both timestamps come from the database clock). */
const leaseLeftMs = (task: Task) => (task.leaseUntil ? Date.parse(task.leaseUntil) - Date.parse(task.updatedAt) : 0);

class Fatal extends Error {}

class Agent {
  /** The agent token's client: claims (and, without --scoped, everything). */
  private readonly agentClient: ClaimboardClient;
  /** The agent token's client for claims that wait (--wait): dropped on shutdown. */
  private readonly waitingClient: ClaimboardClient;
  /** What works the task in hand: the agent's client, or with --scoped one on the task's claim token. */
  private client: ClaimboardClient;
  /** Aborted on SIGINT/SIGTERM: every wait ends at once. */
  private readonly shutdown = new AbortController();
  private backoffMs = MIN_BACKOFF_MS;
  private fatalError: unknown = null;
  /** Tasks parked at their budget right now (--spend): their work waits for the raise. */
  private readonly parked = new Set<string>();
  finished = 0;

  constructor(private readonly opts: Options) {
    // host:pid in every event this process writes, so its replacement on the same token is told apart.
    const instance = `${hostname()}:${process.pid}`;
    this.agentClient = new ClaimboardClient({ baseUrl: opts.url, token: opts.token, instance });
    // Claims that wait in the server go through a client of their own, whose requests a shutdown
    // drops at once; a release or a completion on the way out must still be sent.
    const fetchUntilShutdown: typeof fetch = (input, init) =>
      fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, this.shutdown.signal]) : this.shutdown.signal });
    this.waitingClient = new ClaimboardClient({ baseUrl: opts.url, token: opts.token, instance, fetch: fetchUntilShutdown });
    this.client = this.agentClient;
  }

  /**
   * --scoped: a client of its own for this task, on a claim token minted for its attempt — the
   * worker that holds only that (a sub-agent would be handed the same token). Null when the
   * task was lost before the token could be minted.
   */
  private async scopedClient(task: Task): Promise<ClaimboardClient | null> {
    const minted = await this.ownerCall(task, "mint claim token", () => this.agentClient.createClaimToken(task));
    if (!minted) return null;
    log(`claim token for ${task.id} attempt ${minted.attempt} (${minted.ops.join(", ")})`);
    return new ClaimboardClient({ baseUrl: this.opts.url, token: minted.claimToken, instance: `${hostname()}:${process.pid}:worker` });
  }

  get stopping() {
    return this.shutdown.signal.aborted;
  }

  stop(signal: string) {
    log(`${signal}: stopping`);
    this.shutdown.abort();
  }

  async run(): Promise<void> {
    const { queue, url, workMs, failRate, batch } = this.opts;
    log(`agent ${process.pid} on queue ${queue} at ${url} (work ${workMs} ms, fail rate ${failRate}${batch ? `, batches of ${batch}` : ""})`);
    if (batch) return this.runBatches(batch);
    // The task the last completion claimed in the same call (complete with `next`).
    let next: Task | null = null;
    while (!this.stopping && this.wantsMore()) {
      const asked = Date.now();
      const task = next ?? (await this.claim((claim) => this.waitingClient.claimNext(claim)));
      next = null;
      if (task === undefined) continue;
      if (task === null) {
        if (this.opts.once) return log("nothing to claim");
        await this.nothingClaimed(asked);
        continue;
      }
      this.backoffMs = MIN_BACKOFF_MS;
      this.waiting = false;
      next = await this.handleWith(task);
      if (next) log(`claimed ${next.id} v${next.version} (${next.status}${next.needsCheck ? ", needs_check" : ""})`);
      if (this.opts.once) return;
    }
    if (next) await this.release(next, this.stopping ? "shutting down" : "done with --max-tasks");
  }

  /** One task, worked by the agent's client or (--scoped) by a client on its claim token. */
  private async handleWith(task: Task): Promise<Task | null> {
    if (!this.opts.scoped) return this.handle(task);
    const worker = await this.scopedClient(task);
    if (!worker) return null;
    this.client = worker;
    try {
      return await this.handle(task);
    } finally {
      this.client = this.agentClient;
    }
  }

  private wantsMore(extra = 0): boolean {
    return this.opts.maxTasks === undefined || this.finished + extra < this.opts.maxTasks;
  }

  private get claimOptions(): ClaimOptions {
    const wait = this.opts.wait > 0 ? { wait: this.opts.wait } : {};
    return { queue: this.opts.queue, leaseSeconds: this.opts.leaseSeconds, start: true, skipNeedsCheck: !this.opts.confirmChecks, ...wait };
  }

  /** Logged once per idle stretch, not once per wait. */
  private waiting = false;

  /**
   * A claim came back empty. Waiting, the server held it for the wait: ask again at once (the
   * next wait is the only request while idle). Without --wait, or answered early with nothing
   * (a server stopping), back off as before.
   */
  private async nothingClaimed(asked: number): Promise<void> {
    const { queue, wait } = this.opts;
    if (wait > 0 && Date.now() - asked >= Math.min(EARLY_EMPTY_MS, wait * 1000)) {
      if (!this.waiting) log(`nothing to claim in ${queue}; waiting for work (${wait}s at a time)`);
      this.waiting = true;
      return;
    }
    await this.idle(`nothing to claim in ${queue}`);
  }

  /** A claim call: its answer, or undefined after waiting out a transient failure. */
  private async claim<T extends Task | Task[] | null>(call: (options: ClaimOptions) => Promise<T>): Promise<T | undefined> {
    try {
      const claimed = await call(this.claimOptions);
      const tasks = Array.isArray(claimed) ? claimed : claimed ? [claimed] : [];
      for (const task of tasks) log(`claimed ${task.id} v${task.version} (${task.status}${task.needsCheck ? ", needs_check" : ""})`);
      return claimed;
    } catch (error) {
      if (!transient(error)) throw new Fatal(describe(error));
      // --once is a single try (cron, a CI step): it must end, so what would be waited out is the answer.
      if (this.opts.once) throw new Fatal(this.unreachable(error) ?? describe(error));
      const seconds = Math.max((error as ClaimboardApiError).retryAfter ?? 0, this.backoffMs / 1000);
      await this.idle(this.unreachable(error) ?? describe(error), seconds * 1000);
      return undefined;
    }
  }

  /** For a request that got no answer at all: which server the agent is trying to reach. */
  private unreachable(error: unknown): string | null {
    return isApiError(error) && error.code === "network_error" ? `cannot reach the server at ${this.opts.url} (${error.message}; set --url or CLAIMBOARD_URL)` : null;
  }

  /** Started (confirming a check when allowed), or null when the task was let go or lost. */
  private async started(claimed: Task): Promise<Task | null> {
    if (this.stopping) {
      await this.release(claimed, "shutting down");
      return null;
    }
    if (claimed.status !== "claimed") return claimed;
    if (claimed.needsCheck && !this.opts.confirmChecks) {
      // Only by a race (the server skips needs_check tasks for us): hand it back.
      await this.release(claimed, "needs_check (run with --confirm-checks to take such tasks)");
      return null;
    }
    const task = await this.ownerCall(claimed, "start", () => this.client.start(claimed, { confirmCheck: claimed.needsCheck }));
    if (task) log(`started ${task.id} v${task.version}${claimed.needsCheck ? " (check confirmed)" : ""}`);
    return task;
  }

  /**
   * Works the task with heartbeats for --work-ms: its latest state, or null when it was lost
   * or the agent is stopping (then it is released).
   */
  private async work(task: Task, ms = this.opts.workMs): Promise<Task | null> {
    const lost = new AbortController();
    const heartbeats = this.heartbeat(task, lost);
    await sleep(ms, AbortSignal.any([lost.signal, this.shutdown.signal]));
    // Parked at its budget (--spend): the work waits for the raise before it may finish.
    while (this.parked.has(task.id) && !lost.signal.aborted && !this.stopping) await sleep(250, this.shutdown.signal);
    const stillOurs = !lost.signal.aborted;
    lost.abort(); // ends the heartbeats; an answer in flight is awaited, so none lands after the outcome
    const latest = await heartbeats;
    if (this.fatalError) throw new Fatal(describe(this.fatalError));
    if (!stillOurs) return null;
    if (this.stopping) {
      await this.release(latest, "shutting down");
      return null;
    }
    return latest;
  }

  /** The completion's report of spend (--spend): the last stretch of work. */
  private get spendOf() {
    return this.opts.spend === undefined ? {} : { spend: this.opts.spend };
  }

  private get failsThisOne() {
    return Math.random() < this.opts.failRate;
  }

  /**
   * One claimed task, to the end: started, worked with heartbeats, completed or failed — or
   * let go. A completion claims the next task in the same call unless the agent is about to
   * stop; that task is returned for the loop to handle.
   */
  private async handle(claimed: Task): Promise<Task | null> {
    const begun = await this.started(claimed);
    const started = begun && this.opts.ask ? await this.ownerCall(begun, "ask", () => askFirst(this.client, begun, this.opts.ask!, log, this.shutdown.signal)) : begun;
    const intent = started && this.opts.effects
      ? await this.ownerCall(started, "record effect", () => intendCall(this.client, started, this.opts.downstream, log))
      : null;
    const task = this.opts.effects ? (intent?.task ?? null) : started;
    // With an effect, the call lands mid-work: a crash before it leaves the key unapplied, after it applied but unresolved.
    const before = task && intent ? await this.work(task, this.opts.workMs / 2) : task;
    if (before && intent && !intent.settled) this.opts.downstream.apply(intent.idempotencyKey);
    const worked = before && (this.opts.steps
      ? await workInSteps(before, this.opts.steps, this.opts.workMs, { client: () => this.client, work: (t, ms) => this.work(t, ms), ownerCall: (t, verb, call) => this.ownerCall(t, verb, call), log })
      : await this.work(before, intent ? this.opts.workMs / 2 : this.opts.workMs));
    const latest = worked && intent ? await this.ownerCall(worked, "resolve effect", () => callDone(this.client, intent, worked, log)) : worked;
    if (!latest) return null;
    this.finished++;
    if (this.failsThisOne) {
      const failed = await this.ownerCall(latest, "fail", () => this.client.fail(latest, "simulated failure (--fail-rate)"));
      if (failed) log(`failed ${failed.id} v${failed.version} -> ${failed.status} (failures: ${failed.failureCount})`);
      return null;
    }
    const result = { workMs: this.opts.workMs };
    // A claim token may not claim the next task (wrong_task): --scoped completes, then claims with the agent token.
    if (this.opts.once || !this.wantsMore() || this.opts.scoped) {
      const done = await this.ownerCall(latest, "complete", () => afterReading(this.client, latest, (t) => this.client.complete(t, { result, ...this.spendOf }), log));
      if (done) log(finishedLine(done));
      return null;
    }
    let next: Task | null = null;
    const done = await this.ownerCall(latest, "complete", async () => {
      // The next claim rides along without waiting: an empty one is followed by a waiting claim that a shutdown can drop.
      const { wait: _wait, ...noWait } = this.claimOptions;
      const answer = await afterReading(this.client, latest, (t) => this.client.completeAndClaimNext(t, noWait, { result, ...this.spendOf }), log);
      next = answer.next;
      return answer.task;
    });
    if (done) log(finishedLine(done));
    return next;
  }

  /** --batch N: claim N started tasks in one call, work them together, complete them in one call. */
  private async runBatches(limit: number): Promise<void> {
    while (!this.stopping && this.wantsMore()) {
      const asked = Date.now();
      const claimed = await this.claim((claim) => this.waitingClient.claimBatch({ ...claim, limit }));
      if (claimed === undefined) continue;
      if (claimed.length === 0) {
        if (this.opts.once) return log("nothing to claim");
        await this.nothingClaimed(asked);
        continue;
      }
      this.backoffMs = MIN_BACKOFF_MS;
      this.waiting = false;
      const worked = await Promise.all(claimed.map(async (task) => {
        const started = await this.started(task);
        return started && this.work(started);
      }));
      const toComplete: Task[] = [];
      for (const task of worked) {
        if (!task) continue;
        this.finished++;
        if (!this.failsThisOne) toComplete.push(task);
        else {
          const failed = await this.ownerCall(task, "fail", () => this.client.fail(task, "simulated failure (--fail-rate)"));
          if (failed) log(`failed ${failed.id} v${failed.version} -> ${failed.status} (failures: ${failed.failureCount})`);
        }
      }
      if (toComplete.length > 0) await this.completeBatch(toComplete);
      if (this.opts.once) return;
    }
  }

  private async completeBatch(tasks: Task[]): Promise<void> {
    // Retried like any owner call while the first task's lease could still be ours.
    const results = await this.ownerCall(tasks[0]!, "complete", () =>
      this.client.completeMany(tasks.map((task) => ({ ...task, result: { workMs: this.opts.workMs } }))));
    for (const result of results ?? []) {
      if (result.ok) log(finishedLine(result.task));
      else log(`lost ${result.id} on complete: ${result.error.code}: ${result.error.message}`);
    }
  }

  /**
   * Renews the lease at a third of what is left of it (as the server's answers tell) until
   * `lost` aborts; aborts `lost` itself the moment the task is no longer ours.
   * Resolves with the latest state of the task.
   */
  private async heartbeat(task: Task, lost: AbortController): Promise<Task> {
    let latest = task;
    let waitMs = renewAfterMs(leaseLeftMs(task));
    for (;;) {
      await sleep(Math.max(waitMs, 200), lost.signal);
      if (lost.signal.aborted) return latest;
      try {
        latest = await this.client.heartbeat(latest, this.opts.spend === undefined ? {} : { spend: this.opts.spend });
        if (latest.status === "awaiting_input") {
          const resumed = await this.whileParked(latest, lost.signal);
          if (!resumed) {
            lost.abort();
            return latest;
          }
          latest = resumed;
        }
        waitMs = renewAfterMs(leaseLeftMs(latest));
        tellUnread(latest, log);
        log(`heartbeat ${latest.id} lease until ${latest.leaseUntil}${this.opts.spend === undefined ? "" : ` (spent ${latest.spent})`}`);
      } catch (error) {
        if (lost.signal.aborted) return latest; // the work ended meanwhile; its outcome decides
        if (!transient(error)) {
          if (isApiError(error) && LOST.has(error.code)) log(`abandoned ${task.id}: ${describe(error)}`);
          else this.fatalError = error;
          lost.abort();
          return latest;
        }
        waitMs = 1000 * ((error as ClaimboardApiError).retryAfter ?? 1);
        log(`heartbeat ${task.id} failed (${describe(error)}); retrying in ${waitMs / 1000}s`);
      }
    }
  }

  /**
   * A heartbeat's spend reached the task's budget (docs/budgets.md): the lease is parked, so
   * there is nothing to renew; read the task every 2 s until a supervisor's raise returns it to
   * us (started), or it is no longer ours (its question's deadline escalated it): null then.
   */
  private async whileParked(task: Task, signal: AbortSignal): Promise<Task | null> {
    log(`parked ${task.id} at its budget: spent ${task.spent} of ${task.budget?.limit} ${task.budget?.unit}; waiting for a supervisor to raise it`);
    this.parked.add(task.id);
    try {
      for (;;) {
        await sleep(2000, AbortSignal.any([signal, this.shutdown.signal]));
        if (this.stopping) return null;
        const now = await this.client.getTask(task.id).catch((error: unknown) => (transient(error) ? task : Promise.reject(error)));
        if (now.status === "awaiting_input") continue;
        if (now.status === "started" && now.owner?.id === task.owner?.id) {
          log(`resumed ${now.id}: the budget is ${now.budget?.limit} ${now.budget?.unit}`);
          return now;
        }
        log(`abandoned ${task.id}: it is ${now.status} now`);
        return null;
      }
    } finally {
      this.parked.delete(task.id);
    }
  }

  /**
   * An owner call, retried while the server is busy, rate-limiting or unreachable (a retry
   * of a call that already took effect answers 200) — for as long as the lease could still
   * be ours: past that the task is someone else's to take, so the agent lets it go and
   * carries on rather than exiting. Null when the task is no longer ours.
   */
  private async ownerCall<T>(task: Task, verb: string, call: () => Promise<T>): Promise<T | null> {
    const until = Date.now() + leaseLeftMs(task);
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (transient(error) && (attempt < 5 || Date.now() < until)) {
          const seconds = (error as ClaimboardApiError).retryAfter ?? Math.min(attempt, 5);
          log(`${verb} ${task.id} failed (${describe(error)}); retrying in ${seconds}s`);
          await sleep(seconds * 1000);
          continue;
        }
        if (transient(error)) {
          log(`gave up ${verb} ${task.id} after its lease: ${describe(error)} (the next claimer takes it over)`);
          return null;
        }
        if (isApiError(error) && LOST.has(error.code)) {
          log(`lost ${task.id} on ${verb}: ${describe(error)}`);
          return null;
        }
        throw new Fatal(`${verb} ${task.id}: ${describe(error)}`);
      }
    }
  }

  private async release(task: Task, why: string): Promise<void> {
    const released = await this.ownerCall(task, "release", () => this.client.release(task));
    if (released) log(`released ${released.id} v${released.version}: ${why}`);
  }

  /** Waits with backoff (1 s doubling to 10 s), or `ms` when the server said how long; a signal ends it. */
  private async idle(reason: string, ms = this.backoffMs): Promise<void> {
    log(`${reason}; next try in ${Math.round(ms / 100) / 10}s`);
    await sleep(ms, this.shutdown.signal);
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }
}

async function main(): Promise<number> {
  let opts: Options;
  try {
    opts = options(process.argv.slice(2));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`error: ${message.replace(/\s*\n\s*/g, " ").replace(/^./, (c) => c.toLowerCase())} (see --help)`);
    return 2;
  }
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  const agent = new Agent(opts);
  // Ctrl-C reaches every process of the group, and `npm run`/tsx relay it too: the copies
  // arrive within milliseconds. A second signal a moment later means "leave now" (the lease
  // will lapse on its own).
  let firstSignalAt = 0;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (!firstSignalAt) {
        firstSignalAt = Date.now();
        agent.stop(signal);
      } else if (Date.now() - firstSignalAt > 1000) {
        process.exit(130);
      }
    });
  }
  try {
    await agent.run();
    log(`stopped after ${agent.finished} task${agent.finished === 1 ? "" : "s"}`);
    return 0;
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

process.exit(await main());
