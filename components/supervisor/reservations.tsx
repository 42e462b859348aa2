import Link from "next/link";
import { LocalTime } from "@/components/ui/local-time";
import type { HeldReservation } from "@/lib/tasks";

/**
 * /queues: what is reserved now and by whom (docs/reservations.md). Server-rendered; the
 * page re-renders on the event stream, so a claim or a completion shows within seconds.
 */
export function HeldReservations({ held }: { held: HeldReservation[] }) {
  return (
    <section aria-labelledby="reservations-heading" className="mt-8">
      <h2 id="reservations-heading" className="mb-2 text-lg font-semibold">Reservations held ({held.length})</h2>
      {held.length === 0 ? (
        <p className="text-sm text-slate-700">
          Nothing is reserved now. A task that reserves files or other resources (<code>reserves</code> when it is created) holds
          them while it is claimed or started; claim-next hands out nothing that conflicts with them meanwhile.
        </p>
      ) : (
        <div role="region" aria-label="Reservations table" tabIndex={0} className="overflow-x-auto rounded-lg border border-slate-200 bg-white focus-visible:outline-2 focus-visible:outline-blue-600">
          <table className="min-w-full text-left text-sm" data-testid="reservations">
            <thead className="bg-slate-100 text-xs text-slate-700 uppercase">
              <tr>
                <th scope="col" className="px-3 py-2">Resource</th>
                <th scope="col" className="px-3 py-2">Mode</th>
                <th scope="col" className="px-3 py-2">Held by</th>
                <th scope="col" className="px-3 py-2">Until</th>
              </tr>
            </thead>
            <tbody>
              {held.map((r) => (
                <tr key={`${r.taskId} ${r.resource}`} className="border-t border-slate-100 align-top">
                  <td className="px-3 py-2 font-mono break-all">{r.resource}</td>
                  <td className="px-3 py-2">{r.mode}</td>
                  <td className="px-3 py-2">
                    <Link href={`/tasks/${r.taskId}`} className="text-blue-700 underline break-words">#{r.taskId} {r.title}</Link>
                    <span className="text-slate-700"> · {r.owner.name} ({r.queue})</span>
                  </td>
                  <td className="px-3 py-2 whitespace-nowrap">{r.leaseUntil ? <LocalTime iso={r.leaseUntil.toISOString()} /> : "awaiting an answer"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
