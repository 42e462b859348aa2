"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { lapsedCountAction } from "@/app/actions/board";
import { useRefetchAt } from "@/components/realtime/refetch-at";
import { useViewer } from "@/components/realtime/viewer";
import { taskKeys } from "@/components/task/api";
import { unwrap } from "@/components/task/mutations";
import { toWire } from "@/components/task/wire";
import { focusRing } from "@/components/ui/button";
import { countText } from "./counts";

/**
 * "2 held tasks have lapsed and nobody has taken them": lazy expiry writes nothing, so the
 * board says it from a read (lease_until < now()), refetched with the counts on every event
 * that moves a task and at the next lapse. Supervisors get the link to the inbox's list.
 */
export function LapsedCount() {
  const viewer = useViewer();
  const query = useQuery({
    queryKey: [...taskKeys.counts, "lapsed"],
    queryFn: async () => toWire(await unwrap(lapsedCountAction({}))),
  });
  useRefetchAt(query.data?.nextLapseAt, () => void query.refetch(), query.dataUpdatedAt);
  const count = query.data?.count ?? 0;
  if (count === 0) return null;
  const text = `${countText(count, 1000)} held ${count === 1 ? "task has" : "tasks have"} lapsed and nobody has taken ${count === 1 ? "it" : "them"}`;
  return (
    <p role="status" data-testid="lapsed-count" className="rounded-md border border-red-200 bg-red-50 px-3 py-1.5 text-sm text-red-900">
      {viewer.role === "supervisor" ? (
        <Link href="/inbox#lapsed" className={`rounded underline underline-offset-2 ${focusRing}`}>{text}</Link>
      ) : (
        <>{text}: anyone the queue admits may claim {count === 1 ? "it" : "them"}.</>
      )}
    </p>
  );
}
