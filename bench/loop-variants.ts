/**
 * `npx tsx bench/loop-variants.ts [--setup SQL] [--replace FROM=>TO]… [--drop PREFIX]… [--reps N] [--per-client N] [--clients N]`:
 * what one change to the loop's SQL is worth, before anyone builds it. The engine's own loop
 * (captured as bench/pgbench.ts's `loop`) is replayed by pgbench as it is and with the change,
 * alternately on one server, 16 clients unless told; it prints tasks/s of the variant ÷ as it
 * is, and the server's CPU a task (bench/lib/cpu.ts, where the server runs on this machine):
 * the steadier figure on a busy machine.
 *
 * - `--setup SQL` runs on the variant's database before its drain (e.g. "DROP INDEX tasks_settled_owner").
 * - `--replace FROM=>TO` edits the statements' text (every occurrence; it must occur).
 * - `--drop PREFIX` leaves out the loop's statements that start with PREFIX.
 *
 * CHANGELOG.md ("Issue 21, sixth step") has the variants measured with it.
 */
import postgres from "postgres";
import { captureCycle } from "./lib/capture";
import { serverCpu } from "./lib/cpu";
import { startBenchServer } from "./lib/pg";
import { paired, ratioRow, table } from "./lib/report";
import { summarize } from "./lib/stats";
import { seedQueued } from "./lib/seed";
import { ensurePgbench, runPgbench, script } from "./pgbench";

function options(argv: string[]) {
  const all = (flag: string) => argv.flatMap((a, i) => (argv[i - 1] === flag ? [a] : []));
  const one = (flag: string) => all(flag).at(-1);
  return {
    setup: one("--setup") ?? "",
    replaces: all("--replace").map((r) => {
      const [from, to] = r.split("=>");
      if (!from || to === undefined) throw new Error(`--replace wants FROM=>TO, got ${r}`);
      return { from, to };
    }),
    drops: all("--drop"),
    reps: Number(one("--reps") ?? 6),
    perClient: Number(one("--per-client") ?? 150),
    clients: Number(one("--clients") ?? 16),
  };
}

/** The options' counts, checked: whole numbers ≥ 1. */
function counts(o: ReturnType<typeof options>) {
  for (const [flag, n] of [["--reps", o.reps], ["--per-client", o.perClient], ["--clients", o.clients]] as const) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} wants a whole number ≥ 1, got ${n}`);
  }
  return o;
}

async function main() {
  const o = counts(options(process.argv.slice(2)));
  const server = await startBenchServer();
  try {
    const bin = ensurePgbench();
    const cycle = await captureCycle(await server.fresh("variants_capture"));
    const asIs = script(cycle, "loop");
    let variant = asIs
      .split("\n")
      .filter((line) => !o.drops.some((prefix) => line.startsWith(prefix)))
      .join("\n");
    for (const { from, to } of o.replaces) {
      if (!variant.includes(from)) throw new Error(`--replace: "${from}" is not in the loop's statements`);
      variant = variant.replaceAll(from, to);
    }
    if (variant === asIs && !o.setup) throw new Error("nothing to compare: give --setup, --replace or --drop");
    const meter = await serverCpu(server.admin);
    const cpu = { variant: [] as number[], asIs: [] as number[] };
    let seq = 0;
    const drain = async (side: "variant" | "asIs", text: string, setup: string) => {
      const name = `variants_${++seq}`;
      const url = await server.fresh(name);
      try {
        await seedQueued(url, o.clients * o.perClient + 100);
        if (setup) {
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            await sql.unsafe(setup);
          } finally {
            await sql.end();
          }
        }
        const from = meter?.() ?? 0;
        const rate = await runPgbench(bin, url, cycle, "loop", o.clients, o.perClient, "prepared", text);
        if (meter) cpu[side].push((meter() - from) / (o.clients * o.perClient));
        return rate;
      } finally {
        await server.drop(name);
      }
    };
    const p = await paired(o.reps, () => drain("variant", variant, o.setup), () => drain("asIs", asIs, ""));
    const rows = [ratioRow("variant-vs-loop", `pgbench tasks/s: the variant ÷ the loop's SQL as it is, ${o.clients} clients`, p)];
    if (meter) {
      const ratio = summarize(cpu.variant.map((v, i) => v / cpu.asIs[i]!));
      rows.push(ratioRow("variant-cpu-vs-loop", "the server's CPU ms a task: the variant ÷ as it is", { a: summarize(cpu.variant), b: summarize(cpu.asIs), ratio }));
    } else console.log("the server is not on this machine: its CPU a task is not counted");
    console.log(`\n${table(rows)}\n`);
  } finally {
    await server.stop();
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
