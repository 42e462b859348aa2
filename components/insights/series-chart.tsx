import type { Bucket, Counted, QueueFact } from "@/lib/insights/series";
import { formatAgo } from "./format";

const W = 480;
const H = 120;
const PAD = 22;

export interface SeriesSpec {
  key: Counted;
  label: string;
  /** A Tailwind fill class for the bars and the legend. */
  fill: string;
}

export interface Marks {
  /** Intervals (ms since epoch) while the breaker was tripped. */
  tripped: { from: number; to: number }[];
  /** Lease changes: when, and the new length. */
  leaseChanges: { at: number; label: string }[];
}

/** Breaker intervals and lease changes from the queue's facts (and the state the window began in). */
export function marksOf(facts: QueueFact[], before: QueueFact | null, from: number, to: number): Marks {
  const tripped: Marks["tripped"] = [];
  let since: number | null = before?.type === "breaker_tripped" ? from : null;
  const leaseChanges: Marks["leaseChanges"] = [];
  for (const fact of facts) {
    const at = fact.at.getTime();
    if (fact.type === "breaker_tripped" && since === null) since = at;
    if (fact.type === "breaker_reset" && since !== null) {
      tripped.push({ from: since, to: at });
      since = null;
    }
    const lease = (fact.payload.changes as { leaseSeconds?: { from: number; to: number } } | undefined)?.leaseSeconds;
    if (fact.type === "settings_changed" && lease) leaseChanges.push({ at, label: `lease ${lease.from}→${lease.to} s by ${fact.actor.name}` });
  }
  if (since !== null) tripped.push({ from: since, to });
  return { tripped, leaseChanges };
}

/**
 * Counts per bar over the window, stacked, with the breaker's tripped spells shaded red and
 * lease changes drawn as dashed lines — so a supervisor sees expiries fall after a change.
 */
export function SeriesChart({ title, buckets, series, from, to, bucketSeconds, marks }: {
  title: string;
  buckets: Bucket[];
  series: SeriesSpec[];
  from: number;
  to: number;
  bucketSeconds: number;
  marks?: Marks;
}) {
  const totals = buckets.map((b) => series.reduce((n, s) => n + b.counts[s.key], 0));
  const top = Math.max(1, ...totals);
  const x = (t: number) => PAD + ((t - from) / (to - from)) * (W - PAD);
  const barW = (W - PAD) / buckets.length;
  const sum = (key: Counted) => buckets.reduce((n, b) => n + b.counts[key], 0);
  const described = series.map((s) => `${s.label} ${sum(s.key)}`).join(", ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => from + f * (to - from));
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm" data-testid="series">
      <figcaption className="flex flex-wrap items-baseline gap-x-3">
        <span className="font-medium">{title}</span>
        {series.map((s) => (
          <span key={s.key} className="inline-flex items-center gap-1 text-xs text-slate-600">
            <svg width="10" height="10" aria-hidden><rect width="10" height="10" className={s.fill} /></svg>
            {s.label} ({sum(s.key).toLocaleString("en-GB")})
          </span>
        ))}
        <span className="text-xs text-slate-500">bars of {bucketSeconds >= 3600 ? `${bucketSeconds / 3600} h` : `${bucketSeconds / 60} min`}</span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H + 16}`} className="mt-2 w-full" role="img" aria-label={`${title}: ${described}`}>
        {marks?.tripped.map((t, i) => (
          <rect key={i} x={x(t.from)} y={0} width={Math.max(2, x(t.to) - x(t.from))} height={H} className="fill-red-100">
            <title>breaker tripped</title>
          </rect>
        ))}
        <line x1={PAD} y1={H} x2={W} y2={H} className="stroke-slate-300" />
        <text x={0} y={10} className="fill-slate-500 text-[10px]">{top}</text>
        {buckets.map((b, i) => {
          let y = H;
          return (
            <g key={i}>
              {series.map((s) => {
                const h = (b.counts[s.key] / top) * (H - 14);
                y -= h;
                return h > 0 ? (
                  <rect key={s.key} x={PAD + i * barW + 0.5} y={y} width={Math.max(1, barW - 1)} height={h} className={s.fill}>
                    <title>{`${s.label}: ${b.counts[s.key]}`}</title>
                  </rect>
                ) : null;
              })}
            </g>
          );
        })}
        {marks?.leaseChanges.map((c, i) => (
          <g key={i}>
            <line x1={x(c.at)} y1={0} x2={x(c.at)} y2={H} strokeDasharray="4 3" className="stroke-violet-700" strokeWidth={1.5} />
            <text x={Math.min(x(c.at) + 3, W - 150)} y={10 + 11 * (i % 3)} className="fill-violet-800 text-[10px]">{c.label}</text>
          </g>
        ))}
        {ticks.map((t, i) => (
          <text key={i} x={Math.min(x(t), W - 24)} y={H + 12} className="fill-slate-500 text-[10px]">{formatAgo((to - t) / 1000)}</text>
        ))}
      </svg>
    </figure>
  );
}
