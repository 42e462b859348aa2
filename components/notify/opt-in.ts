"use client";

// Whether this browser shows a person's notifications, and how (docs/attention.md,
// "Notifications"). The opt-in is per browser (localStorage, keyed by the person); which kinds
// is per person, on the server. Where the browser refuses permission (or has no
// Notification), an opted-in person is told in the page instead: `page`.

const OPT_IN = (actorId: string) => `claimboard:notify:${actorId}`;

export type NotifyMode = "browser" | "page" | "off";

export const supported = () => typeof window !== "undefined" && "Notification" in window;

export function notifyMode(actorId: string): NotifyMode {
  if (typeof window === "undefined") return "off";
  if (localStorage.getItem(OPT_IN(actorId)) !== "on") return "off";
  return supported() && Notification.permission === "granted" ? "browser" : "page";
}

// The opt-in as an external store: this tab's toggles and other tabs' (the storage event).
const changed = new Set<() => void>();
export function subscribeOptIn(listener: () => void) {
  changed.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    changed.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

export function setOptIn(actorId: string, on: boolean) {
  if (on) localStorage.setItem(OPT_IN(actorId), "on");
  else localStorage.removeItem(OPT_IN(actorId));
  changed.forEach((listener) => listener());
}

const SHOWN = (actorId: string) => `claimboard:notified:${actorId}`;
/** How many shown keys are remembered (the oldest are forgotten first). */
const REMEMBERED = 500;

function readShown(actorId: string): string[] {
  try {
    const value = JSON.parse(localStorage.getItem(SHOWN(actorId)) ?? "[]") as unknown;
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Takes `key` (an event id, or a lease's end) for this tab: true once per key across every tab
 * and reload — under a Web Lock shared by the tabs of this origin, remembered in localStorage.
 */
export async function claimOnce(actorId: string, key: string): Promise<boolean> {
  const take = () => {
    const shown = readShown(actorId);
    if (shown.includes(key)) return false;
    localStorage.setItem(SHOWN(actorId), JSON.stringify([...shown, key].slice(-REMEMBERED)));
    return true;
  };
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? locks.request(`claimboard-notify-${actorId}`, take) : take();
}
