import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import type { CapturedCycle } from "./lib/capture";

/** pgbench from PATH or /usr/lib/postgresql/N/bin; installed with apt-get (postgresql-client) when missing. */
export function ensurePgbench(): string {
  const find = () => {
    const which = spawnSync("sh", ["-c", "command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1"], { encoding: "utf8" });
    return which.stdout.trim().split("\n").filter(Boolean)[0] ?? null;
  };
  let bin = find();
  if (!bin) {
    console.log("pgbench not found: apt-get install postgresql-client");
    execFileSync("sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-client"], { stdio: "inherit" });
    bin = find();
    if (!bin) throw new Error("pgbench is still missing after installing postgresql-client");
  }
  return bin;
}

/**
 * cycle: the engine's statements as they are. cycle-no-notify: pg_notify replaced by concat
 * (same arguments, no notification). cycle-notify-after: a design alternative, NOT what the
 * engine does — each transaction commits without NOTIFY, then a notify-only transaction with
 * synchronous_commit off (it carries no data) sends the wake-up, so the notify lock is not
 * held across the data commit's flush.
 */
export type Variant = "cycle" | "cycle-no-notify" | "cycle-notify-after" | "claim-only" | "loop";

/**
 * loop: the agent loop as the engine runs it, one database transaction a task — complete the
 * task in hand (:id) and claim and start the next, whose id becomes the one in hand. Each
 * client's first run claims its first task with the v1 claim transaction.
 */
function loopScript(c: CapturedCycle): string {
  const claim = c.claim.map((s, i) => s + (i === c.claimUpdate ? " \\gset" : ";"));
  const loop = c.loop.map((s, i) => s + (i === c.loopClaimUpdate ? " \\gset next_" : ";"));
  return ["\\if :id = 0", "BEGIN;", ...claim, "COMMIT;", "\\endif", "BEGIN;", ...loop, "COMMIT;", "\\set id :next_id"].join("\n") + "\n";
}

/** The captured statements as one pgbench transaction (= one agent cycle: two DB transactions; loop: one). */
export function script(c: CapturedCycle, variant: Variant): string {
  if (variant === "loop") return loopScript(c);
  const strip = variant === "cycle-no-notify" || variant === "cycle-notify-after";
  const noNotify = (s: string) => (strip ? s.replace(/pg_notify\((:\w+)/g, "concat($1::text") : s);
  const channel = Object.entries(c.variables).find(([, v]) => v === "claimboard_events")?.[0];
  const after = variant === "cycle-notify-after" ? [`SELECT set_config('synchronous_commit', 'off', true), pg_notify(:${channel}, '{}');`] : [];
  const claim = c.claim.map((s, i) => noNotify(s) + (i === c.claimUpdate ? " \\gset" : ";"));
  const lines = ["BEGIN;", ...claim, "COMMIT;", ...after];
  if (variant !== "claim-only") lines.push("BEGIN;", ...c.complete.map((s) => noNotify(s) + ";"), "COMMIT;", ...after);
  return lines.join("\n") + "\n";
}

/**
 * Runs `clients` pgbench clients, `perClient` cycles each (-M prepared: the driver binds
 * parameters to prepared statements too). The queue must hold more tasks than
 * clients × perClient, so a claim never comes back empty. Returns cycles per second.
 * `text` replaces the variant's script with an edited copy of it (bench/loop-variants.ts).
 */
export async function runPgbench(
  bin: string, url: string, c: CapturedCycle, variant: Variant, clients: number, perClient: number, mode: "prepared" | "extended" = "prepared",
  text = script(c, variant),
): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`INSERT INTO actors (id, kind, name) VALUES (${c.actor.id}, 'agent', ${c.actor.name}) ON CONFLICT DO NOTHING`;
  await sql.end();
  const defines = { ...c.variables, ...(variant === "loop" ? { id: "0" } : {}) };
  return runPgbenchScript(bin, url, text, defines, clients, perClient, mode);
}

/** One pgbench run of `text` (a script file's contents), `perClient` transactions a client; transactions per second. */
export async function runPgbenchScript(
  bin: string, url: string, text: string, variables: Record<string, string>, clients: number, perClient: number, mode: "prepared" | "extended" = "prepared",
): Promise<number> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-pgbench-"));
  try {
    const file = path.join(dir, "script.sql");
    await fs.writeFile(file, text);
    const defines = Object.entries(variables).flatMap(([k, v]) => ["-D", `${k}=${v}`]);
    const args = ["-n", "-M", mode, "-c", String(clients), "-j", String(Math.min(clients, 2)), "-t", String(perClient), ...defines, "-f", file, url];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
      child.on("exit", (code) => (code === 0 ? resolve(output) : reject(new Error(`pgbench exited ${code}:\n${output}`))));
    });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
    const failed = /number of failed transactions: (\d+)/.exec(out);
    if (!tps || (failed && failed[1] !== "0")) throw new Error(`pgbench: unexpected output:\n${out}`);
    return Number(tps[1]);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
