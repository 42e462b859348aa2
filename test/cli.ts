import { spawn, type ChildProcess } from "node:child_process";

// Runs the project's scripts as a person would, but as one process each (`node --import
// tsx`, not `npx tsx`, which forks a second node): a signal sent to the child reaches
// the script itself, SIGKILL included.

/** Node's arguments before a script, as package.json's scripts give them (scripts/module-hooks.mjs). */
export const scriptNodeArgs = ["--import", "./scripts/module-hooks.mjs", "--import", "tsx"];

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnScript(script: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...scriptNodeArgs, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** `npm run cli -- …args` against `databaseUrl`, to the end. */
export function runCli(args: string[], databaseUrl: string, env: Record<string, string> = {}): Promise<Finished> {
  const child = spawnScript("scripts/cli.ts", args, { DATABASE_URL: databaseUrl, ...env });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningAgent {
  process: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves with the output once a line matches; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** `npm run agent -- …args`, left running. */
export function startAgent(args: string[], env: Record<string, string> = {}): RunningAgent {
  const child = spawnScript("scripts/agent.ts", args, env);
  let output = "";
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk;
    for (const wake of waiters) wake();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return {
    process: child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
        const check = () => {
          const match = output.match(pattern);
          if (match) done(null, match);
        };
        const done = (error: Error | null, match?: RegExpMatchArray) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(match!);
        };
        waiters.add(check);
        void exited.then(() => {
          check();
          if (waiters.has(check)) done(new Error(`agent exited before a line matched ${pattern}:\n${output}`));
        });
        check();
      });
    },
  };
}
