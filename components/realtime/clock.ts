"use client";

import { useSyncExternalStore } from "react";

/**
 * The database clock is the only clock; the browser only estimates it. Every event's `at`
 * is a database time no later than the moment it arrives, so `at - Date.now()` is a lower
 * bound on the offset, and the largest bound seen is the best estimate (live events make
 * it tight). The server's render time seeds it the same way.
 */
let offset = Number.NEGATIVE_INFINITY;

export function noteServerTime(iso: string | number): void {
  const at = typeof iso === "number" ? iso : Date.parse(iso);
  if (Number.isFinite(at)) offset = Math.max(offset, at - Date.now());
}

/**
 * Re-renders what shows the time now rather than at the next second: a `lapsed` event says a
 * lease ended (its `at`, noted first, is past the end), so the card turns "lapsed" as it arrives.
 */
export function tickNow(): void {
  if (!tick) return;
  current = serverNow();
  for (const l of listeners) l();
}

/** Now, by the best estimate of the database clock. */
export function serverNow(): number {
  return Date.now() + (Number.isFinite(offset) ? offset : 0);
}

// One ticking second for the whole page, running only while something shows a countdown.
const listeners = new Set<() => void>();
let tick: ReturnType<typeof setInterval> | null = null;
let current = typeof window === "undefined" ? 0 : Date.now();

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!tick) {
    current = serverNow();
    tick = setInterval(() => {
      current = serverNow();
      for (const l of listeners) l();
    }, 1000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && tick) {
      clearInterval(tick);
      tick = null;
    }
  };
}

const idle = () => () => {};

/**
 * The estimated database time, re-rendering every second; null while hydrating. Pass
 * false where no lease is shown, so a board of queued tasks does not tick for nothing.
 */
export function useNow(ticking = true): number | null {
  return useSyncExternalStore(
    ticking ? subscribe : idle,
    () => current,
    () => null,
  );
}
