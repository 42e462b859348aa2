"use client";

import { useEffect, useState } from "react";
import { serverNow } from "./clock";

/**
 * Calls `refetch` once when the database clock reaches `at` (an ISO time or null). For
 * reads whose truth changes with time alone — a lease lapses and nothing is written
 * (expiry is lazy) — so the page looks again exactly then, not on a poll. `readAt` is
 * when the data was read (TanStack's dataUpdatedAt).
 */
export function useRefetchAt(at: string | null | undefined, refetch: () => void, readAt: number): void {
  useEffect(() => {
    if (!at) return;
    // A moment after, so the database's now() has passed it too; capped to what a timer holds.
    const wait = Math.min(Math.max(0, Date.parse(at) - serverNow()) + 500, 2 ** 31 - 1);
    const timer = setTimeout(refetch, wait);
    return () => clearTimeout(timer);
    // readAt: a read that still found `at` ahead (clocks a little apart) schedules once more.
  }, [at, refetch, readAt]);
}

/**
 * The estimated database time, moved on at each of `times` as it passes (and every 30 s
 * otherwise): for pages that must say "lapsed" or "not live" the moment a lease runs out,
 * without a per-second tick of every row. Null until hydrated.
 */
export function useNowAt(times: readonly (string | null | undefined)[]): number | null {
  const [now, setNow] = useState<number | null>(null);
  const key = times.filter(Boolean).join(",");
  useEffect(() => {
    const update = () => setNow(serverNow());
    const first = setTimeout(update, 0);
    const every = setInterval(update, 30_000);
    return () => {
      clearTimeout(first);
      clearInterval(every);
    };
  }, []);
  useEffect(() => {
    if (now === null) return;
    const next = key.split(",").filter(Boolean).map(Date.parse).filter((t) => t > now).sort((a, b) => a - b)[0];
    if (next === undefined) return;
    const timer = setTimeout(() => setNow(serverNow()), Math.min(next - now + 50, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [key, now]);
  return now;
}
