"use client";

import { useSyncExternalStore } from "react";
import { useNow } from "@/components/realtime/clock";

const never = () => () => {};

/** False on the server and while hydrating, true after: for output that depends on the browser. */
export function useHydrated(): boolean {
  return useSyncExternalStore(never, () => true, () => false);
}

/**
 * "12:03:07" (or the date first, in the reader's order: "12/1/2026 12:03:07" for en-US,
 * "01/12/2026 12:03:07" for en-GB) in the browser's locale and time zone — or the given
 * zone. The server cannot know the reader's locale, so it (and hydration) use en-GB in UTC.
 * Always a 24-hour clock: the lease and history times are read against each other.
 */
export function formatTime(iso: string, withDate = false, timeZone?: string): string {
  const date = new Date(iso);
  const locale = timeZone ? "en-GB" : undefined;
  const time = date.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone });
  return withDate ? `${date.toLocaleDateString(locale, { timeZone })} ${time}` : time;
}

const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g;

/**
 * An engine sentence for people: its ISO instants ("the lease runs until 2026-12-02T18:40:00.000Z")
 * as local times with their date, as formatTime writes them. The API keeps the ISO text.
 */
export function withLocalTimes(text: string, timeZone?: string): string {
  return text.replace(ISO_INSTANT, (iso) => formatTime(iso, true, timeZone));
}

/** "just now", "3 min ago", "2 h ago", "5 days ago" (or "in 3 min" ahead), from `now`. */
export function relativeTime(iso: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const s = Math.abs(seconds);
  const text =
    s < 45 ? null : s < 3600 ? `${Math.round(s / 60)} min` : s < 86_400 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} days`;
  if (text === null) return "just now";
  return seconds < 0 ? `${text} ago` : `in ${text}`;
}

/**
 * A time in the reader's locale and time zone. The server cannot know either, so it (and
 * hydration) show UTC, marked as such, and the browser's follow at once: no hydration
 * mismatch, and never an unmarked time in the wrong zone. `relative` shows "3 min ago"
 * (kept current) with the full date and time beside it in the tooltip.
 */
export function LocalTime({ iso, withDate = false, relative = false, className }: { iso: string; withDate?: boolean; relative?: boolean; className?: string }) {
  const hydrated = useHydrated();
  const now = useNow(relative);
  const full = hydrated ? formatTime(iso, true) : `${formatTime(iso, true, "UTC")} UTC`;
  const shown = relative && hydrated && now !== null ? relativeTime(iso, now) : hydrated ? formatTime(iso, withDate) : `${formatTime(iso, withDate, "UTC")} UTC`;
  return (
    <time dateTime={iso} title={full} className={className}>
      {shown}
    </time>
  );
}
