"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { reservationWaitsAction } from "@/app/actions/board";
import { unwrap } from "@/components/task/mutations";
import { focusRing } from "@/components/ui/button";
import type { HeldConflict } from "@/lib/tasks";

export const reservationWaitsKey = ["reservation-waits"] as const;

/**
 * Which tasks on the board wait on another holder's reservation (the engine's readiness
 * `reserved`, lib/tasks/reservations/held.ts): their cards offer no Claim and say who holds
 * what, and Claim next steps over them. Refetched with every task event
 * (components/realtime/invalidate.ts) and each half minute, since a lease can lapse without one.
 */
export function useReservedBy(): Map<string, HeldConflict[]> {
  const query = useQuery({
    queryKey: reservationWaitsKey,
    queryFn: () => unwrap(reservationWaitsAction({})),
    refetchInterval: 30_000,
  });
  return new Map((query.data ?? []).map((wait) => [wait.taskId, wait.holders]));
}

/** The task page's sentence where Claim is not offered for a reservation. */
export function reservedSentence(holders: HeldConflict[]): string {
  const named = [...new Set(holders.map((h) => `#${h.taskId}${h.owner ? ` (${h.owner})` : ""} holds ${h.resource}`))];
  return `Not claimable yet: ${named.join("; ")}, which this task's reservations conflict with. It becomes claimable when that holding ends.`;
}

/** "Reserved by #12 (coder-1): templates/**", one line per holding task. */
export function ReservedBy({ holders }: { holders: HeldConflict[] }) {
  const byTask = new Map<string, { owner: string | null; resources: string[] }>();
  for (const h of holders) {
    const entry = byTask.get(h.taskId) ?? { owner: h.owner, resources: [] };
    entry.resources.push(h.resource);
    byTask.set(h.taskId, entry);
  }
  return (
    <p data-testid="reserved-by" className="mt-1 flex flex-col gap-0.5 text-xs text-amber-800">
      {[...byTask].map(([taskId, { owner, resources }]) => (
        <span key={taskId}>
          Reserved by{" "}
          <Link href={`/tasks/${taskId}`} className={`rounded underline ${focusRing}`}>
            #{taskId}
          </Link>
          {owner ? ` (${owner})` : ""}: {resources.join(", ")}
        </span>
      ))}
    </p>
  );
}
