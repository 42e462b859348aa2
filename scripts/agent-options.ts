// The reference agent's command line (scripts/agent.ts): its usage text and the parsed,
// checked options; a bad one is a UsageError naming it.
import { parseArgs } from "node:util";
import { LIMITS } from "../lib/limits";
import { Downstream } from "./agent-effects";

export const USAGE = `usage: CLAIMBOARD_TOKEN=cb_… npm run agent -- --queue Q [options]

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


/** How long each claim waits in the server for work (--wait): an idle agent costs one held request. */
const DEFAULT_WAIT_SECONDS = 30;

class UsageError extends Error {}

export function options(argv: string[]) {
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

export type Options = ReturnType<typeof options>;
