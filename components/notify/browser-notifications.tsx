"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { notificationsAction } from "@/app/actions/board";
import { onLiveEvents } from "@/components/realtime/listeners";
import { useViewer } from "@/components/realtime/viewer";
import { focusRing } from "@/components/ui/button";
import { isNotifiedType, type NotificationFact } from "@/lib/notify/kinds";

// Browser notifications (docs/board.md): a person opts in on the board, per browser (the
// choice and the Notification permission are both the browser's, so localStorage keeps it,
// keyed by the person). While the board is open in any tab, each event of a notified type
// that the server says is a fact for them (lib/notify/facts.ts) becomes one notification:
// the event id is claimed under a Web Lock shared by the tabs of this origin and remembered
// in localStorage, so one tab shows it and a reload or a replayed event never repeats it.

const OPT_IN = (actorId: string) => `claimboard:notify:${actorId}`;
const SHOWN = (actorId: string) => `claimboard:notified:${actorId}`;
/** How many shown event ids are remembered (the oldest are forgotten first). */
const REMEMBERED = 500;

const supported = () => typeof window !== "undefined" && "Notification" in window;

function readShown(actorId: string): string[] {
  try {
    const value = JSON.parse(localStorage.getItem(SHOWN(actorId)) ?? "[]") as unknown;
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

/** Takes the event id for this tab: true once per id across every tab and reload. */
async function claimOnce(actorId: string, eventId: string): Promise<boolean> {
  const take = () => {
    const shown = readShown(actorId);
    if (shown.includes(eventId)) return false;
    localStorage.setItem(SHOWN(actorId), JSON.stringify([...shown, eventId].slice(-REMEMBERED)));
    return true;
  };
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? locks.request(`claimboard-notify-${actorId}`, take) : take();
}

function show(fact: NotificationFact, open: (href: string) => void) {
  const notification = new Notification(fact.title, { body: fact.body, tag: `claimboard-${fact.eventId}` });
  notification.onclick = () => {
    window.focus();
    if (fact.taskId) open(`/tasks/${fact.taskId}`);
  };
}

// The opt-in as an external store: this tab's toggles and other tabs' (the storage event).
const changed = new Set<() => void>();
function subscribe(listener: () => void) {
  changed.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    changed.delete(listener);
    window.removeEventListener("storage", listener);
  };
}
const optedIn = (actorId: string) =>
  supported() ? (localStorage.getItem(OPT_IN(actorId)) === "on" && Notification.permission === "granted" ? "on" : "off") : "unsupported";

export function BrowserNotifications() {
  const viewer = useViewer();
  const router = useRouter();
  const state = useSyncExternalStore(subscribe, () => optedIn(viewer.actorId), () => "unsupported" as const);
  const on = state === "on";
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!on) return;
    return onLiveEvents((events) => {
      const heard = events.flatMap((e) =>
        isNotifiedType(e.type) && e.actor.id !== viewer.actorId && e.taskId ? [{ id: e.eventId, taskId: e.taskId }] : []);
      if (heard.length === 0) return;
      void notificationsAction({ events: heard }).then(async (result) => {
        if (!result.ok) return;
        for (const fact of result.value) if (await claimOnce(viewer.actorId, fact.eventId)) show(fact, (href) => router.push(href));
      });
    });
  }, [on, viewer.actorId, router]);

  const toggle = useCallback(async (wanted: boolean) => {
    setProblem(null);
    if (!wanted) {
      localStorage.removeItem(OPT_IN(viewer.actorId));
      return changed.forEach((listener) => listener());
    }
    const permission = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
    if (permission !== "granted") return setProblem("This browser blocks notifications from the board: allow them in its site settings.");
    localStorage.setItem(OPT_IN(viewer.actorId), "on");
    changed.forEach((listener) => listener());
  }, [viewer.actorId]);

  if (state === "unsupported") return null;
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
      <label className="inline-flex items-center gap-2" title="Reviews waiting for you, questions in your queues, your tasks taken over">
        <input type="checkbox" checked={on} onChange={(e) => void toggle(e.target.checked)} className={`h-4 w-4 rounded ${focusRing}`}
          data-testid="notify-toggle" />
        Notify me in this browser
      </label>
      {problem ? <span role="alert" className="text-red-800">{problem}</span> : null}
    </div>
  );
}
