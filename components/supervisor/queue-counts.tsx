import { STATUSES } from "@/components/task/wire";
import type { QueueSettingsView } from "./types";

/** A count the server capped: cap + 1 reads "1,000+". */
export const shown = (n: number, cap: number) => (n > cap ? `${cap.toLocaleString("en-GB")}+` : n.toLocaleString("en-GB"));

/**
 * "3 queued · 1 claimed · 0 started · 2 escalated · 40 done · 1 cancelled" and the throughput:
 * live, because every event on the stream refetches the supervisors' queries.
 */
export function QueueCounts({ queue, cap = 1000 }: { queue: QueueSettingsView; cap?: number }) {
  return (
    <div className="mt-2 text-sm text-slate-700">
      <ul aria-label={`Tasks in ${queue.name}`} className="flex flex-wrap gap-x-3 gap-y-1">
        {STATUSES.map((status) => (
          <li key={status} data-testid={`count-${status}`}>
            <span className="font-semibold tabular-nums">{shown(queue.counts[status], cap)}</span> {status}
          </li>
        ))}
      </ul>
      <p className="mt-1 text-slate-600" data-testid="throughput">
        Finished: {queue.throughput.lastHour.toLocaleString("en-GB")} in the last hour, {queue.throughput.last24Hours.toLocaleString("en-GB")} in 24 h
      </p>
    </div>
  );
}
