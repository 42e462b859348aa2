"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { lapsedAction } from "@/app/inbox/actions";
import { useRefetchAt } from "@/components/realtime/refetch-at";
import { ActorName } from "@/components/task/badges";
import { unwrap } from "@/components/task/mutations";
import { toWire, type Wire } from "@/components/task/wire";
import { focusRing } from "@/components/ui/button";
import type { Lapsed } from "@/lib/tasks";
import { Ago } from "./ago";
import { supervisorKeys } from "./keys";
import { useAgeClock } from "./use-age-clock";

export type LapsedView = Wire<Lapsed>;

/**
 * The inbox's other half: held tasks whose lease has lapsed and that nobody has taken over
 * — a crashed agent's work on an agents-only queue sits here instead of looking "started".
 * Expiry writes nothing, so the list is read again on every event and at the next lapse.
 */
export function LapsedHoldings({ initial }: { initial: LapsedView }) {
  const query = useQuery({
    queryKey: supervisorKeys.lapsed,
    queryFn: async () => toWire(await unwrap(lapsedAction({}))),
    initialData: initial,
  });
  const { data } = query;
  useRefetchAt(data.nextLapseAt, () => void query.refetch(), query.dataUpdatedAt);
  const now = useAgeClock();
  return (
    <section id="lapsed" aria-labelledby="lapsed-heading" className="space-y-2" data-testid="lapsed-holdings">
      <h2 id="lapsed-heading" className="text-lg font-semibold">
        Lapsed, nobody has taken them <span className="text-slate-700">({data.count > data.tasks.length ? `${data.tasks.length} of ${data.count}` : data.count})</span>
      </h2>
      {data.tasks.length === 0 ? (
        <p className="text-sm text-slate-700">No lapsed leases: every held task has a lease still running.</p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
          {data.tasks.map((task) => (
            <li key={task.id} data-testid={`lapsed-${task.id}`} className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1 px-3 py-2 text-sm">
              <Link href={`/tasks/${task.id}`} className={`min-w-0 rounded font-medium wrap-anywhere text-blue-800 underline underline-offset-2 ${focusRing}`}>
                #{task.id} {task.title}
              </Link>
              <span className="text-xs text-slate-700">
                {task.queue} · {task.status} by <ActorName actor={task.owner} /> ·{" "}
                <span className="font-medium text-red-800">lapsed <Ago iso={task.leaseUntil} now={now} /></span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
