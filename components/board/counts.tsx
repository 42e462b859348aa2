"use client";

import { useQuery } from "@tanstack/react-query";
import { fetchCounts, taskKeys, type CountsView } from "@/components/task/api";
import type { ListFilter } from "@/components/task/filters";

/**
 * The board's live counts for its filter (GET /tasks/counts). Every task event marks them
 * stale (components/realtime/invalidate.ts), so they follow the stream like the lists do.
 */
export function useCounts(filter: Omit<ListFilter, "status" | "sort">, initial?: CountsView) {
  return useQuery({
    queryKey: taskKeys.countsOf(filter),
    queryFn: () => fetchCounts(filter),
    ...(initial ? { initialData: initial } : {}),
  }).data;
}

/** "12", or "1,000+" past the cap (a count stops at cap + 1 so it stays cheap). */
export function countText(count: number, cap: number): string {
  return count > cap ? `${cap.toLocaleString("en")}+` : count.toLocaleString("en");
}

/** A count beside a heading: the number, and in words for a screen reader. */
export function Count({ count, cap, testId }: { count: number | undefined; cap: number; testId?: string }) {
  if (count === undefined) return null;
  const text = countText(count, cap);
  return (
    <span data-testid={testId} className="rounded-full bg-white px-1.5 text-xs font-medium text-slate-700 tabular-nums ring-1 ring-slate-300 ring-inset">
      <span aria-hidden>{text}</span>
      <span className="sr-only">{`${text} ${count === 1 ? "task" : "tasks"}`}</span>
    </span>
  );
}
