import type { ReactNode } from "react";
import type { Claimant } from "@/lib/insights/series";
import { Badge } from "@/components/ui/badge";

const PARTS = [
  { key: "completed", label: "done", className: "bg-green-600", fill: "fill-green-600" },
  { key: "failed", label: "failures", className: "bg-amber-500", fill: "fill-amber-500" },
  { key: "expiries", label: "lapsed leases", className: "bg-red-600", fill: "fill-red-600" },
] as const;

/** Per person or agent: what they finished, failed, and let lapse — one stacked bar each. */
export function ClaimantBars({ claimants }: { claimants: Claimant[] }) {
  if (claimants.length === 0) return <p className="text-sm text-slate-500">Nobody claimed work in this queue in this window.</p>;
  const top = Math.max(1, ...claimants.map((c) => c.completed + c.failed + c.expiries));
  return (
    <div>
      <p className="mb-2 flex flex-wrap gap-3 text-xs text-slate-600">
        {PARTS.map((p) => (
          <span key={p.key} className="inline-flex items-center gap-1">
            <span className={`inline-block h-2.5 w-2.5 ${p.className}`} aria-hidden />
            {p.label}
          </span>
        ))}
      </p>
      <ul className="space-y-1.5" aria-label="Claimants">
        {claimants.map((c) => (
          <li key={c.actor.id} className="grid grid-cols-[minmax(6rem,12rem)_1fr] items-center gap-2 text-sm" data-testid="claimant">
            <span className="flex min-w-0 items-center gap-1">
              <span className="truncate">{c.actor.name}</span>
              <Badge tone={c.actor.kind === "agent" ? "violet" : "slate"}>{c.actor.kind === "agent" ? "agent" : "person"}</Badge>
            </span>
            <span className="flex min-w-0 items-center gap-2">
              {/* SVG widths, not inline styles: the Content-Security-Policy allows no style attributes. */}
              <svg viewBox="0 0 100 4" preserveAspectRatio="none" className="h-3 w-full min-w-12 flex-1 rounded bg-slate-100" aria-hidden>
                {PARTS.reduce<{ x: number; rects: ReactNode[] }>(
                  (acc, p) => {
                    const w = (c[p.key] / top) * 100;
                    acc.rects.push(<rect key={p.key} x={acc.x} y={0} width={w} height={4} className={p.fill} />);
                    return { x: acc.x + w, rects: acc.rects };
                  },
                  { x: 0, rects: [] },
                ).rects}
              </svg>
              {/* Wraps on a phone rather than push the row past the screen; one line from sm up. */}
              <span className="text-xs text-slate-600 sm:w-40 sm:shrink-0">
                {c.completed} done · {c.failed} failed{c.noProgress ? ` (${c.noProgress} without progress)` : ""} · {c.expiries} lapsed
              </span>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
