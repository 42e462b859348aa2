"use client";

import { useSyncExternalStore } from "react";

const never = () => () => {};

/** False on the server and while hydrating, true after: for output that depends on the browser. */
export function useHydrated(): boolean {
  return useSyncExternalStore(never, () => true, () => false);
}

/** "12:03:07" (or "29/11/2026 12:03:07") in the given time zone (the browser's when omitted). */
export function formatTime(iso: string, withDate = false, timeZone?: string): string {
  const date = new Date(iso);
  const time = date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZone });
  return withDate ? `${date.toLocaleDateString("en-GB", { timeZone })} ${time}` : time;
}

/**
 * A time of day in the reader's time zone. The server cannot know that zone, so it (and
 * hydration) show UTC, marked as such, and the browser's zone follows at once: no
 * hydration mismatch, and never an unmarked time in the wrong zone.
 */
export function LocalTime({ iso, withDate = false, className }: { iso: string; withDate?: boolean; className?: string }) {
  const hydrated = useHydrated();
  return (
    <time dateTime={iso} title={hydrated ? new Date(iso).toString() : iso} className={className}>
      {hydrated ? formatTime(iso, withDate) : `${formatTime(iso, withDate, "UTC")} UTC`}
    </time>
  );
}
