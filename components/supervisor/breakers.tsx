"use client";

import Link from "next/link";
import { resetBreakerAction, sweepAction } from "@/app/actions/supervise";
import { Button, focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { useToast } from "@/components/ui/toaster";
import { ActorName } from "@/components/task/badges";
import type { TrippedQueueView } from "./types";
import { useSupervisorCall } from "./use-supervisor";

/** Queues whose breaker stopped automatic reclaiming: why, since when, what waits, and the reset. */
export function Breakers({ breakers }: { breakers: TrippedQueueView[] }) {
  const { notify } = useToast();
  const reset = useSupervisorCall(resetBreakerAction, {
    verb: "reset the breaker of",
    onSuccess: (queue) => notify("info", `The breaker of ${queue.name} is reset; lapsed leases there can be reclaimed again.`),
  });
  const sweep = useSupervisorCall(sweepAction, {
    verb: "sweep",
    onSuccess: (result) =>
      notify(
        "info",
        `Swept ${result.expired} expired lease${result.expired === 1 ? "" : "s"}.` +
          (result.stopped.length ? ` Held back by a tripped breaker: ${result.stopped.join(", ")}.` : ""),
      ),
  });
  return (
    <section aria-labelledby="breakers-heading" className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="breakers-heading" className="text-lg font-semibold">
          Tripped breakers
        </h2>
        <Button size="sm" onClick={() => sweep.mutate({})} disabled={sweep.isPending}>
          {sweep.isPending ? "Sweeping…" : "Sweep expired leases"}
        </Button>
      </div>
      {breakers.length === 0 ? <p className="text-sm text-slate-600">No queue&apos;s breaker is tripped.</p> : null}
      <ul className="space-y-3">
        {breakers.map((queue) => (
          <li key={queue.name}>
            <section aria-label={`Breaker of ${queue.name}`} className="rounded-lg border border-amber-300 bg-amber-50 p-3">
              <h3 className="font-semibold">Queue {queue.name}: breaker tripped</h3>
              <p className="mt-1 text-sm" data-testid="breaker-reason">
                {queue.reason}
              </p>
              <p className="text-xs text-slate-700">
                Tripped at <LocalTime iso={queue.trippedAt} withDate />
              </p>
              <h4 className="mt-2 text-sm font-medium">
                Held back: {queue.heldBack.length} lapsed task{queue.heldBack.length === 1 ? "" : "s"}
              </h4>
              <ul className="mt-1 space-y-1 text-sm">
                {queue.heldBack.map((task) => (
                  <li key={task.id} className="flex flex-wrap gap-x-2">
                    <Link href={`/tasks/${task.id}`} className={`rounded text-blue-800 underline ${focusRing}`}>
                      {task.title}
                    </Link>
                    <span className="text-slate-700">
                      {task.status}
                      {task.owner ? <> by <ActorName actor={task.owner} /></> : null}
                      {task.leaseUntil ? <>, lease lapsed at <LocalTime iso={task.leaseUntil} /></> : null}
                    </span>
                  </li>
                ))}
              </ul>
              <Button
                size="sm"
                tone="primary"
                className="mt-3"
                disabled={reset.isPending}
                onClick={() => reset.mutate({ queue: queue.name })}
              >
                Reset breaker
              </Button>
            </section>
          </li>
        ))}
      </ul>
    </section>
  );
}
