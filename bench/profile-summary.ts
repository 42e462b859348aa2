/**
 * `npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N]`: a V8 CPU profile (node
 * --cpu-prof, e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" around a
 * bench row) as self time by package and by function — the tables CHANGELOG.md quotes.
 */
import fs from "node:fs";

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

/** next, postgres, drizzle-orm, …; node's own internals; (idle)/(gc)/(program); the app's code. */
export function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  if (url.startsWith("node:")) return "node";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.includes("/.next/server/chunks/")) return "app (bundled)";
  return "app";
}

function main() {
  const file = process.argv[2];
  if (!file) throw new Error("usage: profile-summary FILE.cpuprofile [--top N]");
  const top = Number(process.argv[process.argv.indexOf("--top") + 1]) || 15;
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    busy += us;
    const pkg = packageOf(url, functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
    const key = `${functionName || "(anonymous)"} ${pkg}${url ? `:${lineNumber + 1}` : ""}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`;
  console.log(`busy ${(busy / 1000).toFixed(0)} ms in ${profile.samples.length} samples\n\n| package | self |\n|---|---|`);
  for (const [k, v] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${k} | ${pct(v)} |`);
  console.log(`\n| function | self |\n|---|---|`);
  for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${k} | ${pct(v)} |`);
}

main();
