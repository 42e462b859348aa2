"use client";

// "Used recently": pointer, keys, touch, wheel or focus on any page of the app in the last
// few minutes. Shared between a person's open tabs through localStorage, so the tab they
// work in keeps the leases of the one they left open, and none warns while another is used.

const ACTIVE_KEY = "claimboard:active-at";
/** How long after the last use a person counts as present; tests shorten it (IDLE_KEY). */
export const IDLE_AFTER_MS = 3 * 60_000;
const IDLE_KEY = "claimboard:idle-after-ms";
const WRITE_EVERY_MS = 2000;

let lastActive = typeof window === "undefined" ? 0 : Date.now();
let lastWritten = 0;

function read(key: string): number {
  try {
    const value = Number(window.localStorage.getItem(key));
    return Number.isFinite(value) ? value : 0;
  } catch {
    return 0;
  }
}

export function idleAfterMs(): number {
  return idleOverrideMs() ?? IDLE_AFTER_MS;
}

/** The tests' shortened idle time (IDLE_KEY), or null: then the queues' personIdleSeconds decide. */
export function idleOverrideMs(): number | null {
  const override = read(IDLE_KEY);
  return override > 0 ? override : null;
}

/** Records a use of this page now. */
export function markActive(): void {
  lastActive = Date.now();
  if (lastActive - lastWritten < WRITE_EVERY_MS) return;
  lastWritten = lastActive;
  try {
    window.localStorage.setItem(ACTIVE_KEY, String(lastActive));
  } catch {
    // private mode or storage full: this tab alone counts
  }
}

/** When any of the person's tabs was last used (ms, browser clock). */
export function lastActiveAt(): number {
  return Math.max(lastActive, read(ACTIVE_KEY));
}

export function isActive(now = Date.now(), withinMs = idleAfterMs()): boolean {
  return now - lastActiveAt() < withinMs;
}

const EVENTS = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart", "focus"] as const;

/** Listens for use of the page; returns the cleanup. */
export function watchActivity(): () => void {
  const onUse = () => markActive();
  for (const name of EVENTS) window.addEventListener(name, onUse, { passive: true, capture: true });
  return () => {
    for (const name of EVENTS) window.removeEventListener(name, onUse, { capture: true });
  };
}
