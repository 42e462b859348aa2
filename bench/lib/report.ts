import fs from "node:fs";
import path from "node:path";
import { summarize, type Summary } from "./stats";

export interface Row {
  name: string;
  metric: string;
  value: number;
  baseline: number | null;
  ratio: number | null;
  /** e.g. ">= 1.0"; absent for rows reported without a goal. */
  goal?: string;
  met?: boolean;
  /** min–max of the per-repetition ratios (or values). */
  spread?: [number, number];
  note?: string;
}

/** A and B measured alternately, rep by rep (order flipped each time), so drift hits both alike. */
export async function paired(reps: number, a: () => Promise<number>, b: () => Promise<number>) {
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return { a: summarize(as), b: summarize(bs), ratio: summarize(as.map((x, i) => x / bs[i]!)) };
}

export function ratioRow(
  name: string,
  metric: string,
  p: { a: Summary; b: Summary; ratio: Summary },
  goal?: { op: ">=" | "<="; target: number },
  note?: string,
): Row {
  const ratio = p.ratio.median;
  return {
    name,
    metric,
    value: p.a.median,
    baseline: p.b.median,
    ratio,
    ...(goal ? { goal: `${goal.op} ${goal.target}`, met: goal.op === ">=" ? ratio >= goal.target : ratio <= goal.target } : {}),
    spread: [p.ratio.min, p.ratio.max],
    ...(note ? { note } : {}),
  };
}

const num = (n: number | null, d = 2) => (n === null ? "—" : Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(d));

export function table(rows: Row[]): string {
  const head = ["name", "metric", "value", "baseline", "ratio (spread)", "goal", ""];
  const body = rows.map((r) => [
    r.name,
    r.metric,
    num(r.value),
    num(r.baseline),
    r.ratio === null ? "—" : `${r.ratio.toFixed(2)}${r.spread ? ` (${r.spread[0].toFixed(2)}–${r.spread[1].toFixed(2)})` : ""}`,
    r.goal ?? "",
    r.met === undefined ? "" : r.met ? "met" : "NOT met",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

export function writeResults(file: string, meta: Record<string, unknown>, rows: Row[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...meta, rows }, null, 2) + "\n");
}
