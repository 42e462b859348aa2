import type { Distribution } from "@/lib/insights/distributions";
import { formatDuration, formatEdge } from "./format";

const W = 360;
const H = 120;
const PAD = 18;

/**
 * One distribution as bars over the log-spaced buckets of lib/insights (empty buckets at
 * either end trimmed), with its percentiles above and, optionally, a line where the
 * queue's lease falls — the bars right of it are the steps the lease does not cover.
 */
export function HistogramChart({ title, hint, distribution, edges, leaseMs }: {
  title: string;
  hint: string;
  distribution: Distribution | undefined;
  edges: number[];
  leaseMs?: number;
}) {
  if (!distribution || distribution.count === 0) {
    return (
      <figure className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
        <figcaption className="font-medium">{title}</figcaption>
        <p className="mt-2 text-sm text-slate-500">No samples in this window.</p>
      </figure>
    );
  }
  const { counts } = distribution;
  const first = Math.max(0, counts.findIndex((n) => n > 0) - 1);
  const last = Math.min(counts.length - 1, counts.length - 1 - [...counts].reverse().findIndex((n) => n > 0) + 1);
  const shown = counts.slice(first, last + 1);
  const top = Math.max(...shown);
  const barW = (W - PAD) / shown.length;
  const label = (i: number) => (i === 0 ? "0" : formatEdge(edges[i - 1]!));
  // The lease's position: inside the bucket that holds it, proportionally on a log scale.
  let leaseX: number | null = null;
  if (leaseMs !== undefined) {
    const i = edges.findIndex((e) => leaseMs < e);
    const bucket = i === -1 ? edges.length : i;
    if (bucket >= first && bucket <= last) {
      const low = bucket === 0 ? 1 : edges[bucket - 1]!;
      const high = edges[bucket] ?? low * 2;
      const within = Math.log(leaseMs / low) / Math.log(high / low);
      leaseX = PAD + (bucket - first + Math.min(1, Math.max(0, within))) * barW;
    }
  }
  const summary = `p50 ${formatDuration(distribution.p50)} · p95 ${formatDuration(distribution.p95)} · p99 ${formatDuration(distribution.p99)}`;
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm" data-testid="histogram">
      <figcaption>
        <span className="font-medium">{title}</span>
        <span className="ml-2 text-xs text-slate-500">{distribution.count.toLocaleString("en-GB")} samples</span>
        <p className="text-sm text-slate-700">{summary}</p>
        <p className="text-xs text-slate-500">{hint}</p>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H + 16}`} className="mt-2 w-full" role="img" aria-label={`${title}: ${summary}`}>
        <line x1={PAD} y1={H} x2={W} y2={H} className="stroke-slate-300" />
        <text x={0} y={10} className="fill-slate-500 text-[9px]">{top}</text>
        {shown.map((n, i) => {
          const h = top === 0 ? 0 : (n / top) * (H - 14);
          return (
            <g key={i}>
              <rect x={PAD + i * barW + 1} y={H - h} width={Math.max(1, barW - 2)} height={h} className="fill-blue-500">
                <title>{`${label(first + i)}–${first + i < edges.length ? formatEdge(edges[first + i]!) : "∞"}: ${n}`}</title>
              </rect>
              {i % Math.ceil(shown.length / 8) === 0 ? (
                <text x={PAD + i * barW} y={H + 12} className="fill-slate-500 text-[9px]">{label(first + i)}</text>
              ) : null}
            </g>
          );
        })}
        {leaseX !== null ? (
          <g>
            <line x1={leaseX} y1={4} x2={leaseX} y2={H} strokeDasharray="4 3" className="stroke-red-600" strokeWidth={1.5} />
            <text x={Math.min(leaseX + 3, W - 60)} y={12} className="fill-red-700 text-[9px]">lease {formatDuration(leaseMs!)}</text>
          </g>
        ) : null}
      </svg>
    </figure>
  );
}
