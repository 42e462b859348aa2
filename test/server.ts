import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { freePort } from "@/db/embedded";

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");

export interface TestServer {
  url: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
  /** Ends the process at once with `signal` (SIGKILL: a crash, nothing runs on the way out). */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * `next start` of the production build on a free port against `databaseUrl` — the real
 * server, over real HTTP. `npm test` builds first; a bare `vitest run` builds here when
 * no build exists (stale builds are the caller's business: run `npm run build`).
 */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<TestServer> {
  await ensureBuild();
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [nextBin, "start", "--port", String(port)], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_URL: databaseUrl,
      NEXTAUTH_SECRET: "claimboard-test-secret",
      NEXTAUTH_URL: `http://127.0.0.1:${port}`,
      // Tests' webhooks point at TEST-NET-2, which the sender never connects to (lib/webhooks/targets.ts).
      WEBHOOKS_ALLOW_TEST_NET: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${url}/api/v1/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 300) throw new Error(`next start did not become healthy:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

const BUILD_LOCK = ".next-build.lock";

/**
 * Builds once when there is no build. Vitest's workers start servers at the same moment,
 * and a second `next build` beside the first fails ("Another next build process is already
 * running"), so one worker builds under a lock and the others wait for it to finish. A lock
 * older than a build could take is left over from a killed run and is taken over.
 */
async function ensureBuild(): Promise<void> {
  if (existsSync(".next/BUILD_ID")) return;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 15 * 60_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
    else await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    if (existsSync(".next/BUILD_ID")) return; // another worker built it while this one waited
    const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
    if (build.status !== 0) throw new Error("next build failed");
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}
