import type { PopulationInsights } from "@/lib/insights/insights";
import { Badge } from "@/components/ui/badge";
import { formatDuration } from "./format";
import { VERDICT_TONE } from "./lease-card";

const NAMES = { people: "People", agents: "Agents" } as const;

/**
 * The lease advice for each claimant kind that uses the queue, apart: a browser renews at
 * a third of the lease while its person is present, an agent on its own schedule, and one
 * p99 over both would suit neither.
 */
export function PopulationAdvice({ populations }: { populations: PopulationInsights[] }) {
  if (populations.length === 0) return null;
  return (
    <div className="mt-3 overflow-x-auto">
    <table className="w-full text-left text-sm" aria-label="Lease advice by claimant kind">
      <thead className="text-xs text-slate-500">
        <tr>
          <th className="py-1 font-medium">Who</th>
          <th className="py-1 font-medium">p99 interval</th>
          <th className="py-1 font-medium">Lapsed / claims</th>
          <th className="py-1 font-medium">Recommended</th>
        </tr>
      </thead>
      <tbody>
        {populations.map((p) => (
          <tr key={p.population} data-testid={`advice-${p.population}`} className="border-t border-slate-100" title={p.recommendation.why}>
            <td className="py-1 font-medium">{NAMES[p.population]}</td>
            <td className="py-1">{p.evidence.p99Ms === null ? "—" : formatDuration(p.evidence.p99Ms)} <span className="text-xs text-slate-500">of {p.evidence.intervals}</span></td>
            <td className="py-1">{p.evidence.expiries} / {p.evidence.claims}</td>
            <td className="py-1">
              {p.recommendation.seconds === null ? "—" : `${p.recommendation.seconds} s`}{" "}
              <Badge tone={VERDICT_TONE[p.recommendation.verdict]}>{p.recommendation.verdict}</Badge>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
