// `npm run agent -- --queue Q --token T`: the reference agent. It claims the next task
// (claim and start in one call), keeps the lease alive with heartbeats at a third of the
// lease, simulates the work, completes or fails the task, and repeats. With nothing to do it
// waits in the server (a claim with `wait`, one request at a time: docs/claiming.md "Waiting
// for work"); it backs off only when the server fails, is busy or asks it to (429, 503).
// One log line per action on stdout.
import { hostname } from "node:os";
import { ClaimboardApiError, ClaimboardClient, type ClaimOptions, type Task } from "../lib/client";
import { renewAfterMs } from "../lib/cadence";
import { callDone, intendCall } from "./agent-effects";
import { describe, Fatal, isApiError, LOST, leaseLeftMs, log, ownerCall, sleep, transient } from "./agent-calls";
import { options, USAGE, type Options } from "./agent-options";
import { whileParked } from "./agent-parked";
import { askFirst } from "./agent-ask";
import { workInSteps } from "./agent-steps";
import { afterReading, tellUnread } from "./agent-input";

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 10_000;
/** A wait answered sooner than this with nothing (a server stopping) is not waited again at once: backoff. */
const EARLY_EMPTY_MS = 1000;

/** What became of a completion: done, or waiting for a reviewer (the queue reviews agents' work). */
const finishedLine = (task: Task) => `${task.status === "in_review" ? "submitted for review" : "completed"} ${task.id} v${task.version}`;

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
    const minted = await ownerCall(task, "mint claim token", () => this.agentClient.createClaimToken(task));
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
    const task = await ownerCall(claimed, "start", () => this.client.start(claimed, { confirmCheck: claimed.needsCheck }));
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
    const started = begun && this.opts.ask ? await ownerCall(begun, "ask", () => askFirst(this.client, begun, this.opts.ask!, log, this.shutdown.signal)) : begun;
    const intent = started && this.opts.effects
      ? await ownerCall(started, "record effect", () => intendCall(this.client, started, this.opts.downstream, log))
      : null;
    const task = this.opts.effects ? (intent?.task ?? null) : started;
    // With an effect, the call lands mid-work: a crash before it leaves the key unapplied, after it applied but unresolved.
    const before = task && intent ? await this.work(task, this.opts.workMs / 2) : task;
    if (before && intent && !intent.settled) this.opts.downstream.apply(intent.idempotencyKey);
    const worked = before && (this.opts.steps
      ? await workInSteps(before, this.opts.steps, this.opts.workMs, { client: () => this.client, work: (t, ms) => this.work(t, ms), ownerCall: (t, verb, call) => ownerCall(t, verb, call), log })
      : await this.work(before, intent ? this.opts.workMs / 2 : this.opts.workMs));
    const latest = worked && intent ? await ownerCall(worked, "resolve effect", () => callDone(this.client, intent, worked, log)) : worked;
    if (!latest) return null;
    this.finished++;
    if (this.failsThisOne) {
      const failed = await ownerCall(latest, "fail", () => this.client.fail(latest, "simulated failure (--fail-rate)"));
      if (failed) log(`failed ${failed.id} v${failed.version} -> ${failed.status} (failures: ${failed.failureCount})`);
      return null;
    }
    const result = { workMs: this.opts.workMs };
    // A claim token may not claim the next task (wrong_task): --scoped completes, then claims with the agent token.
    if (this.opts.once || !this.wantsMore() || this.opts.scoped) {
      const done = await ownerCall(latest, "complete", () => afterReading(this.client, latest, (t) => this.client.complete(t, { result, ...this.spendOf }), log));
      if (done) log(finishedLine(done));
      return null;
    }
    let next: Task | null = null;
    const done = await ownerCall(latest, "complete", async () => {
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
          const failed = await ownerCall(task, "fail", () => this.client.fail(task, "simulated failure (--fail-rate)"));
          if (failed) log(`failed ${failed.id} v${failed.version} -> ${failed.status} (failures: ${failed.failureCount})`);
        }
      }
      if (toComplete.length > 0) await this.completeBatch(toComplete);
      if (this.opts.once) return;
    }
  }

  private async completeBatch(tasks: Task[]): Promise<void> {
    // Retried like any owner call while the first task's lease could still be ours.
    const results = await ownerCall(tasks[0]!, "complete", () =>
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

  /** Parked at its budget: the work waits (this.parked) until agent-parked.ts's wait ends. */
  private async whileParked(task: Task, signal: AbortSignal): Promise<Task | null> {
    this.parked.add(task.id);
    try {
      return await whileParked(this.client, task, AbortSignal.any([signal, this.shutdown.signal]), () => this.stopping);
    } finally {
      this.parked.delete(task.id);
    }
  }

  private async release(task: Task, why: string): Promise<void> {
    const released = await ownerCall(task, "release", () => this.client.release(task));
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
