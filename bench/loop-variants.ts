/**
 * `npx tsx bench/loop-variants.ts [--setup SQL] [--replace FROM=>TO]… [--drop PREFIX]… [--reps N] [--per-client N]`:
 * what one change to the loop's SQL is worth, before anyone builds it. The engine's own loop
 * (captured as bench/pgbench.ts's `loop`) is replayed by pgbench as it is and with the change,
 * alternately on one server, 16 clients; it prints tasks/s of the variant ÷ as it is.
 *
 * - `--setup SQL` runs on the variant's database before its drain (e.g. "DROP INDEX tasks_owner").
 * - `--replace FROM=>TO` edits the statements' text (every occurrence; it must occur).
 * - `--drop PREFIX` leaves out the loop's statements that start with PREFIX.
 *
 * docs/performance.md ("Issue 21, sixth step") has the variants measured with it.
 */
import postgres from "postgres";
import { captureCycle } from "./lib/capture";
import { startBenchServer } from "./lib/pg";
import { paired, ratioRow, table } from "./lib/report";
import { seedQueued } from "./lib/seed";
import { ensurePgbench, runPgbench, script } from "./pgbench";

const CLIENTS = 16;

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
  };
}

async function main() {
  const o = options(process.argv.slice(2));
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
    let seq = 0;
    const drain = async (text: string, setup: string) => {
      const name = `variants_${++seq}`;
      const url = await server.fresh(name);
      try {
        await seedQueued(url, CLIENTS * o.perClient + 100);
        if (setup) {
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            await sql.unsafe(setup);
          } finally {
            await sql.end();
          }
        }
        return await runPgbench(bin, url, cycle, "loop", CLIENTS, o.perClient, "prepared", text);
      } finally {
        await server.drop(name);
      }
    };
    const p = await paired(o.reps, () => drain(variant, o.setup), () => drain(asIs, ""));
    console.log(`\n${table([ratioRow("variant-vs-loop", `pgbench tasks/s: the variant ÷ the loop's SQL as it is, ${CLIENTS} clients`, p)])}\n`);
  } finally {
    await server.stop();
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
