"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { supervisorKeys } from "@/components/supervisor/keys";

/** Busy boards send events all the time; the insights are re-read at most this often. */
const MIN_INTERVAL_MS = 10_000;

/**
 * Keeps a server-rendered page current without polling: the tab's event stream marks the
 * supervisor queries stale on every event (components/realtime/invalidate.ts); this local
 * query's "refetch" costs nothing and re-renders the page on the server, throttled.
 */
export function RefreshOnEvents() {
  const router = useRouter();
  const { dataUpdatedAt } = useQuery({ queryKey: supervisorKeys.insightsTick, queryFn: () => Date.now(), staleTime: Infinity });
  // The tick's first value is the page as rendered; only later ones mean events arrived.
  const baseline = useRef<number | null>(null);
  const last = useRef(0);
  useEffect(() => {
    if (!dataUpdatedAt) return;
    if (baseline.current === null) {
      baseline.current = dataUpdatedAt;
      last.current = Date.now();
      return;
    }
    const wait = Math.max(0, last.current + MIN_INTERVAL_MS - Date.now());
    const timer = setTimeout(() => {
      last.current = Date.now();
      router.refresh();
    }, wait);
    return () => clearTimeout(timer);
  }, [dataUpdatedAt, router]);
  return null;
}
