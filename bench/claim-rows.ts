// The claim-scale rows (docs/performance.md): claim-next p50 over a big table ÷ over 1k tasks
// (mixed, a work graph, reservations) and the cost of unblocking 1,000 dependents. run.ts
// registers them as sections; each pushes its row.
import { claimP50 } from "./claim-scale";
import { completeAndClaimP50, seedFanout, seedGraph } from "./graph";
import type { BenchServer } from "./lib/pg";
import { paired, ratioRow, type Row } from "./lib/report";
import { seedMixed, seedReserved } from "./lib/seed";

export interface ClaimRowsContext {
  server: BenchServer;
  /** A fresh database of the run's own, named after `kind`. */
  db: (server: BenchServer, kind: string) => Promise<string>;
  sizes: { bigClaim: number; claims: number; claimReps: number };
  quick: boolean;
  log: (line: string) => void;
  /** Where each row goes as it is measured. */
  rows: Row[];
}

/** claim-next p50 over a mixed table of `bigClaim` tasks ÷ over 1k. */
export async function claimScale({ server, db, sizes: SIZES, quick, log, rows }: ClaimRowsContext): Promise<void> {
  const small = await db(server, "claim_1k");
  const big = await db(server, "claim_big");
  await seedMixed(small, 1000);
  const t0 = performance.now();
  await seedMixed(big, SIZES.bigClaim);
  log(`  seeded ${SIZES.bigClaim} tasks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const p = await paired(SIZES.claimReps, () => claimP50(big, SIZES.claims), () => claimP50(small, SIZES.claims));
  const label = SIZES.bigClaim === 1_000_000 ? "1M" : `${SIZES.bigClaim / 1000}k (quick)`;
  rows.push(ratioRow("claim-p50-1m-vs-1k", `claim-next p50 ms, ${label} tasks ÷ 1k`, p, { op: "<=", target: 1.5 },
    quick ? "quick run: 100,000 tasks instead of 1,000,000" : undefined));
}

/** claim-next p50 where 30 % of the table is blocked and 10 % not yet due (bench/graph.ts). */
export async function graphClaimScale({ server, db, sizes: SIZES, quick, log, rows }: ClaimRowsContext): Promise<void> {
  const small = await db(server, "graph_1k");
  const big = await db(server, "graph_big");
  await seedGraph(small, 1000);
  const t0 = performance.now();
  await seedGraph(big, SIZES.bigClaim);
  log(`  seeded ${SIZES.bigClaim} tasks (30 % blocked, 10 % not yet due) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const p = await paired(SIZES.claimReps, () => claimP50(big, SIZES.claims), () => claimP50(small, SIZES.claims));
  const label = SIZES.bigClaim === 1_000_000 ? "1M" : `${SIZES.bigClaim / 1000}k (quick)`;
  rows.push(ratioRow("claim-p50-graph-1m-vs-1k", `claim-next p50 ms, ${label} tasks (30 % blocked, 10 % not yet due) ÷ 1k`, p,
    { op: "<=", target: 1.5 }, quick ? "quick run: 100,000 tasks instead of 1,000,000" : undefined));
  await server.drop(big.split("/").at(-1)!);
}

/** claim-next p50 where 20 % of the tasks reserve a resource, some of them held (issue 24). */
export async function reservedClaimScale({ server, db, sizes: SIZES, quick, log, rows }: ClaimRowsContext): Promise<void> {
  const small = await db(server, "reserved_1k");
  const big = await db(server, "reserved_big");
  await seedReserved(small, 1000);
  const t0 = performance.now();
  await seedReserved(big, SIZES.bigClaim);
  log(`  seeded ${SIZES.bigClaim} tasks (20 % reserving) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const p = await paired(SIZES.claimReps, () => claimP50(big, SIZES.claims), () => claimP50(small, SIZES.claims));
  const label = SIZES.bigClaim === 1_000_000 ? "1M" : `${SIZES.bigClaim / 1000}k (quick)`;
  rows.push(ratioRow("claim-p50-reserved-1m-vs-1k", `claim-next p50 ms, ${label} tasks (20 % reserving) ÷ 1k`, p,
    { op: "<=", target: 1.5 }, quick ? "quick run: 100,000 tasks instead of 1,000,000" : undefined));
  await server.drop(big.split("/").at(-1)!);
}

/** Completing a task 1,000 queued tasks wait for, and claiming one of them, against a plain completion. */
export async function unblockFanout({ server, db, sizes: SIZES, quick, log, rows }: ClaimRowsContext): Promise<void> {
  const url = await db(server, "fanout");
  const { parent, plain } = await seedFanout(url, 1000);
  const reps = quick ? 15 : 41;
  const p = await paired(SIZES.claimReps, () => completeAndClaimP50(url, parent, reps), () => completeAndClaimP50(url, plain, reps));
  const fan = p.a.median;
  const base = p.b.median;
  rows.push({
    name: "unblock-1000", metric: "complete + claim-next p50 ms, 1,000 dependents unblocked (baseline: none)",
    value: fan, baseline: base, ratio: (fan - base) / 1000 / base, spread: [p.a.min, p.a.max],
    note: `ratio = cost per dependent ÷ a plain completion ((${fan.toFixed(2)} − ${base.toFixed(2)}) ms / 1,000 ÷ ${base.toFixed(2)} ms); spread = fan-out p50 min–max`,
  });
  log(`  fan-out ${fan.toFixed(2)} ms, plain ${base.toFixed(2)} ms`);
}
