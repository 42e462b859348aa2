"use client";

import { useCallback, useState, useSyncExternalStore } from "react";
import { useViewer } from "@/components/realtime/viewer";
import { focusRing } from "@/components/ui/button";
import { notifyMode, setOptIn, subscribeOptIn, supported } from "./opt-in";

// The opt-in to notifications in this browser (docs/attention.md, "Notifications"), on the
// board and on /account. The app shell's listener (notification-listener.tsx) shows them on
// every page; where the browser refuses permission, it shows them in the page and this says so.

export function BrowserNotifications() {
  const viewer = useViewer();
  const mode = useSyncExternalStore(subscribeOptIn, () => notifyMode(viewer.actorId), () => "off" as const);
  const [asked, setAsked] = useState(false);

  const toggle = useCallback(async (wanted: boolean) => {
    if (!wanted) return setOptIn(viewer.actorId, false);
    if (supported() && Notification.permission === "default") await Notification.requestPermission();
    setAsked(true);
    setOptIn(viewer.actorId, true);
  }, [viewer.actorId]);

  return (
    <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
      <label className="inline-flex items-center gap-2" title="Questions you may answer, reviews waiting for you, your leases about to lapse, your tasks taken over">
        <input type="checkbox" checked={mode !== "off"} onChange={(e) => void toggle(e.target.checked)} className={`h-4 w-4 rounded ${focusRing}`}
          data-testid="notify-toggle" />
        Notify me in this browser
      </label>
      {mode === "page" ? (
        <span role={asked ? "alert" : "status"} className="text-amber-900" data-testid="notify-in-page">
          This browser refuses notifications from the board: they show in the page instead. Allow them in its site settings to be told in the background.
        </span>
      ) : null}
    </div>
  );
}
