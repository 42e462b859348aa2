import type { QueueFact } from "@/lib/insights/series";
import type { QueueOverview } from "@/lib/insights/insights";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { LocalTime } from "@/components/ui/local-time";
import { ApplyLease } from "./apply-lease";
import { formatDuration } from "./format";
import { PopulationAdvice } from "./population-advice";

export const VERDICT_TONE: Record<string, BadgeTone> = {
  "too short": "red",
  "too long": "amber",
  "about right": "green",
  "not enough data": "slate",
};

/** The lease now, the lease the evidence asks for, the evidence, and who changed it when. */
export function LeaseCard({ overview, window, changes }: { overview: QueueOverview; window: string; changes: QueueFact[] }) {
  const { queue, recommendation: rec, evidence } = overview;
  const canApply = rec.seconds !== null && rec.seconds !== queue.leaseSeconds;
  return (
    <section aria-labelledby="lease-heading" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="lease-heading" className="font-semibold">Lease length</h2>
        <Badge tone={VERDICT_TONE[rec.verdict]}>lease: {rec.verdict}</Badge>
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
        <div>
          <dt className="text-xs text-slate-500">Now</dt>
          <dd className="text-2xl font-semibold" data-testid="current-lease">{queue.leaseSeconds} s</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">Recommended</dt>
          <dd className="text-2xl font-semibold" data-testid="recommended-lease">{rec.seconds === null ? "—" : `${rec.seconds} s`}</dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">p99 interval between signs of life</dt>
          <dd className="text-lg">{evidence.p99Ms === null ? "—" : formatDuration(evidence.p99Ms)} <span className="text-xs text-slate-500">of {evidence.intervals}</span></dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">Claims ending in a lapsed lease</dt>
          <dd className="text-lg">{evidence.expiries} <span className="text-xs text-slate-500">of {evidence.claims}</span></dd>
        </div>
      </dl>
      <p className="mt-3 text-sm text-slate-700" data-testid="recommendation-why">{rec.why}</p>
      {overview.populations.length > 1 ? (
        <p className="mt-1 text-xs text-slate-500">
          People and agents both claim here: each is measured apart below, and the queue&apos;s lease follows the kind that
          claims most. Agents may ask for their own lease on each claim (leaseSeconds).
        </p>
      ) : null}
      <PopulationAdvice populations={overview.populations} />
      {overview.leaseChangedAt ? (
        <p className="mt-1 text-xs text-slate-500">
          Claims and lapsed leases are counted since the lease last changed, <LocalTime iso={overview.leaseChangedAt.toISOString()} withDate />.
        </p>
      ) : null}
      {canApply ? (
        <div className="mt-3">
          <ApplyLease queue={queue.name} window={window} seconds={rec.seconds!} />
        </div>
      ) : null}
      {changes.length > 0 ? (
        <ul className="mt-3 space-y-1 border-t border-slate-100 pt-2 text-sm text-slate-700" aria-label="Settings changes">
          {changes.map((c, i) => (
            <li key={i}>
              <LocalTime iso={c.at.toISOString()} withDate /> — {c.actor.name} {c.payload.created ? "created the queue" : `changed ${describeChanges(c.payload)}`}
              {c.payload.reason === "recommended" ? " (the recommendation)" : ""}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

const LABELS: Record<string, string> = {
  leaseSeconds: "the lease",
  maxFailures: "max failures",
  expiryThreshold: "the breaker threshold",
  expiryWindowSeconds: "the breaker window",
};

function describeChanges(payload: Record<string, unknown>): string {
  const changes = (payload.changes ?? {}) as Record<string, { from: number; to: number }>;
  return Object.entries(changes).map(([k, v]) => `${LABELS[k] ?? k} ${v.from} → ${v.to}`).join(", ") || "nothing";
}
