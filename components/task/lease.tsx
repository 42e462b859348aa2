"use client";

import { useNow } from "@/components/realtime/clock";
import { Badge } from "@/components/ui/badge";
import { LocalTime } from "@/components/ui/local-time";
import { HELD } from "@/lib/tasks/model";

export function duration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/**
 * Time left on a lease, ticking locally against the estimated database clock. At zero it
 * says "lapsed" and means it: the task may be claimed by anyone, whatever the row says.
 */
export function LeaseCountdown({ leaseUntil }: { leaseUntil: string | null }) {
  const now = useNow();
  if (!leaseUntil) return <span className="text-slate-500">no lease</span>;
  const until = Date.parse(leaseUntil);
  const title = `Lease until ${new Date(leaseUntil).toString()}`;
  if (now === null) {
    return (
      <span className="tabular-nums">
        until <LocalTime iso={leaseUntil} />
      </span>
    );
  }
  const left = until - now;
  if (left <= 0) {
    return (
      <time dateTime={leaseUntil} title={title} data-testid="lease" data-lapsed="true" className="font-medium text-red-700 tabular-nums">
        lapsed {duration(-left)} ago
      </time>
    );
  }
  return (
    <time dateTime={leaseUntil} title={title} data-testid="lease" className={`tabular-nums ${left < 15_000 ? "text-amber-700" : ""}`}>
      {duration(left)} left
    </time>
  );
}

/**
 * "lease lapsed" beside the status, once the lease is past by the page's clock: the row
 * still says claimed or started (expiry is lazy), but nobody holds it in truth until
 * someone claims it.
 */
export function LapsedBadge({ task }: { task: { status: string; leaseUntil: string | null } }) {
  const now = useNow((HELD as readonly string[]).includes(task.status));
  if (now === null || !(HELD as readonly string[]).includes(task.status) || (task.leaseUntil && Date.parse(task.leaseUntil) > now)) return null;
  return <span data-testid="lapsed-badge"><Badge tone="red">lease lapsed</Badge></span>;
}
