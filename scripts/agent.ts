// `npm run agent -- --queue Q --token T`: the reference agent. It claims the next task
// (claim and start in one call), keeps the lease alive with heartbeats at a third of the
// lease, simulates the work, completes or fails the task, and repeats; it backs off when
// there is nothing to do or the server asks it to. One log line per action on stdout.
import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { ClaimboardApiError, ClaimboardClient, type Task } from "../lib/client";

const USAGE = `usage: npm run agent -- --queue Q --token T [options]

  --queue Q            queue to work (default: default)
  --token T            bearer token (or CLAIMBOARD_TOKEN)
  --url URL            server (default: CLAIMBOARD_URL or http://localhost:3000)
  --confirm-checks     take needs_check tasks (confirm the check); otherwise release them
  --lease-seconds S    lease to ask for, 5..3600 (default: the queue's)
  --work-ms N          simulated work per task (default 2000)
  --fail-rate R        fraction of tasks to fail instead of complete, 0..1 (default 0)
  --once               handle at most one task, then exit (also when there is none)
  --max-tasks N        exit after completing or failing N tasks`;

/**
 * Codes that mean the task is no longer ours to work on: stop at once. Any other 4xx is fatal.
 * attempt_limit: the queue's attempt ceiling is reached; the lapse that follows is a strike.
 */
const LOST = new Set(["lease_expired", "not_owner", "version_conflict", "invalid_transition", "not_found", "attempt_limit"]);
const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 10_000;

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
      once: { type: "boolean", default: false },
      "max-tasks": { type: "string" },
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
  const url = values.url ?? process.env.CLAIMBOARD_URL ?? "http://localhost:3000";
  if (!URL.canParse(url)) throw new UsageError(`--url is not a URL: ${JSON.stringify(url)}`);
  return {
    help: values.help,
    queue: values.queue,
    token: token ?? "",
    url,
    confirmChecks: values["confirm-checks"],
    leaseSeconds: number("lease-seconds", values["lease-seconds"], 5, 3600),
    workMs: number("work-ms", values["work-ms"], 0, 86_400_000)!,
    failRate: number("fail-rate", values["fail-rate"], 0, 1, false)!,
    maxTasks: values.once ? 1 : number("max-tasks", values["max-tasks"], 1, Number.MAX_SAFE_INTEGER),
    once: values.once,
  };
}

type Options = ReturnType<typeof options>;

const log = (line: string) => console.log(line);

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
  private readonly client: ClaimboardClient;
  /** Aborted on SIGINT/SIGTERM: every wait ends at once. */
  private readonly shutdown = new AbortController();
  private backoffMs = MIN_BACKOFF_MS;
  private fatalError: unknown = null;
  finished = 0;

  constructor(private readonly opts: Options) {
    // host:pid in every event this process writes, so its replacement on the same token is told apart.
    this.client = new ClaimboardClient({ baseUrl: opts.url, token: opts.token, instance: `${hostname()}:${process.pid}` });
  }

  get stopping() {
    return this.shutdown.signal.aborted;
  }

  stop(signal: string) {
    log(`${signal}: stopping`);
    this.shutdown.abort();
  }

  async run(): Promise<void> {
    const { queue, url, workMs, failRate, maxTasks } = this.opts;
    log(`agent ${process.pid} on queue ${queue} at ${url} (work ${workMs} ms, fail rate ${failRate})`);
    while (!this.stopping && (maxTasks === undefined || this.finished < maxTasks)) {
      let task: Task | null;
      try {
        task = await this.client.claimNext({
          queue,
          leaseSeconds: this.opts.leaseSeconds,
          start: true,
          skipNeedsCheck: !this.opts.confirmChecks,
        });
      } catch (error) {
        if (!transient(error)) throw new Fatal(describe(error));
        const seconds = Math.max((error as ClaimboardApiError).retryAfter ?? 0, this.backoffMs / 1000);
        await this.idle(describe(error), seconds * 1000);
        continue;
      }
      if (!task) {
        if (this.opts.once) return log("nothing to claim");
        await this.idle(`nothing to claim in ${queue}`);
        continue;
      }
      this.backoffMs = MIN_BACKOFF_MS;
      log(`claimed ${task.id} v${task.version} (${task.status}${task.needsCheck ? ", needs_check" : ""})`);
      await this.handle(task);
      if (this.opts.once) return;
    }
  }

  /** One claimed task, to the end: started, worked with heartbeats, completed or failed — or let go. */
  private async handle(claimed: Task): Promise<void> {
    let task = claimed;
    if (this.stopping) return this.release(task, "shutting down");
    if (task.status === "claimed") {
      if (task.needsCheck && !this.opts.confirmChecks) {
        // Only by a race (the server skips needs_check tasks for us): hand it back.
        await this.release(task, "needs_check (run with --confirm-checks to take such tasks)");
        return;
      }
      const started = await this.ownerCall(task, "start", () => this.client.start(task, { confirmCheck: task.needsCheck }));
      if (!started) return;
      task = started;
      log(`started ${task.id} v${task.version}${claimed.needsCheck ? " (check confirmed)" : ""}`);
    }

    const lost = new AbortController();
    const heartbeats = this.heartbeat(task, lost);
    await sleep(this.opts.workMs, AbortSignal.any([lost.signal, this.shutdown.signal]));
    const stillOurs = !lost.signal.aborted;
    lost.abort(); // ends the heartbeats; an answer in flight is awaited, so none lands after the outcome
    const latest = await heartbeats;
    if (this.fatalError) throw new Fatal(describe(this.fatalError));
    if (!stillOurs) return;
    if (this.stopping) return this.release(latest, "shutting down");

    if (Math.random() < this.opts.failRate) {
      const failed = await this.ownerCall(latest, "fail", () => this.client.fail(latest, "simulated failure (--fail-rate)"));
      if (failed) log(`failed ${failed.id} v${failed.version} -> ${failed.status} (failures: ${failed.failureCount})`);
    } else {
      const done = await this.ownerCall(latest, "complete", () => this.client.complete(latest, { result: { workMs: this.opts.workMs } }));
      if (done) log(`completed ${done.id} v${done.version}`);
    }
    this.finished++;
  }

  /**
   * Renews the lease at a third of what is left of it (as the server's answers tell) until
   * `lost` aborts; aborts `lost` itself the moment the task is no longer ours.
   * Resolves with the latest state of the task.
   */
  private async heartbeat(task: Task, lost: AbortController): Promise<Task> {
    let latest = task;
    let waitMs = leaseLeftMs(task) / 3;
    for (;;) {
      await sleep(Math.max(waitMs, 200), lost.signal);
      if (lost.signal.aborted) return latest;
      try {
        latest = await this.client.heartbeat(latest);
        waitMs = leaseLeftMs(latest) / 3;
        log(`heartbeat ${latest.id} lease until ${latest.leaseUntil}`);
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
   * An owner call, retried while the server is busy, rate-limiting or unreachable (a retry
   * of a call that already took effect answers 200) — for as long as the lease could still
   * be ours: past that the task is someone else's to take, so the agent lets it go and
   * carries on rather than exiting. Null when the task is no longer ours.
   */
  private async ownerCall(task: Task, verb: string, call: () => Promise<Task>): Promise<Task | null> {
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
