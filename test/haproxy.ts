import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "@/db/embedded";

/** Debian's HAProxy, when installed (.ci/run installs it). */
export const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((file) => spawnSync("test", ["-x", file]).status === 0) ?? null;

export interface Proxy {
  url: string;
  /** Responses each backend server has given so far (HAProxy's own stats: hrsp_1xx … hrsp_5xx). */
  responses(): Promise<Record<string, number>>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * HAProxy in front of `backends` (name → http://host:port), as a load balancer would be:
 * round robin, a health check of /api/v1/health every 300 ms that takes a dead instance out
 * after two misses, a connection that fails retried on the other instance (never a request that
 * reached a server: a POST is not sent twice), X-Forwarded-For added, event streams let
 * through for as long as they stay open.
 */
export async function startHaproxy(backends: Record<string, string>): Promise<Proxy> {
  if (!HAPROXY) throw new Error("haproxy is not installed (apt-get install haproxy)");
  const [port, statsPort] = [await freePort(), await freePort()];
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-haproxy-"));
  const servers = Object.entries(backends).map(([name, url]) => {
    const { hostname, port: p } = new URL(url);
    return `  server ${name} ${hostname}:${p} check inter 300ms fall 2 rise 2`;
  });
  const config = [
    "global",
    "  maxconn 4000",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  timeout tunnel 1h",
    // A health check slowed by load is not a dead instance: only a refused or silent one is.
    "  timeout check 2s",
    "  retries 3",
    "  option redispatch",
    "  retry-on conn-failure",
    "frontend claimboard",
    `  bind 127.0.0.1:${port}`,
    "  default_backend instances",
    "frontend stats",
    `  bind 127.0.0.1:${statsPort}`,
    "  stats enable",
    "  stats uri /stats",
    "backend instances",
    "  balance roundrobin",
    "  option forwardfor",
    "  option httpchk GET /api/v1/health",
    "  http-check expect status 200",
    ...servers,
    "",
  ].join("\n");
  const file = path.join(dir, "haproxy.cfg");
  await fs.writeFile(file, config);
  const check = spawnSync(HAPROXY, ["-c", "-f", file], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stdout}${check.stderr}`);
  const child: ChildProcess = spawn(HAPROXY, ["-db", "-f", file], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stats = `http://127.0.0.1:${statsPort}/stats;csv`;
  const responses = async () => {
    const csv = await (await fetch(stats)).text();
    const [header, ...rows] = csv.trim().split("\n").map((line) => line.replace(/^# /, "").split(","));
    const column = (name: string) => header!.indexOf(name);
    const counts = ["hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx"].map(column);
    return Object.fromEntries(
      rows
        .filter((r) => r[column("pxname")] === "instances" && r[column("svname")]! in backends)
        .map((r) => [r[column("svname")]!, counts.reduce((sum, i) => sum + Number(r[i] || 0), 0)]),
    );
  };
  // Up when the frontend answers and every backend has passed its health checks.
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited ${child.exitCode}: ${output}`);
    const csv = await fetch(stats).then((r) => r.text(), () => "");
    const up = csv.split("\n").filter((line) => line.startsWith("instances,") && !line.startsWith("instances,BACKEND") && line.includes(",UP,"));
    if (up.length === Object.keys(backends).length) break;
    if (i > 200) throw new Error(`haproxy's backends did not come up: ${csv}${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    responses,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
