"use client";

import { formatTime, LocalTime, relativeTime } from "@/components/ui/local-time";

/**
 * "40 min ago" from the page's age clock (use-age-clock.ts), the full date and time in the
 * tooltip; before hydration (now null) the time itself, as LocalTime shows it.
 */
export function Ago({ iso, now }: { iso: string; now: number | null }) {
  if (now === null) return <LocalTime iso={iso} withDate />;
  return (
    <time dateTime={iso} title={formatTime(iso, true)}>
      {relativeTime(iso, now)}
    </time>
  );
}
