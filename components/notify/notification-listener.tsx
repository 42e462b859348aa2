"use client";

import { useRouter } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useEffectEvent, useSyncExternalStore } from "react";
import { notificationKindsAction } from "@/app/account/actions";
import { notificationsAction } from "@/app/actions/board";
import { heldLeasesAction } from "@/app/actions/leases";
import { useAttention } from "@/components/layout/attention";
import { markActive } from "@/components/presence/activity";
import { onLiveEvents } from "@/components/realtime/listeners";
import { useViewer } from "@/components/realtime/viewer";
import { unwrap } from "@/components/task/mutations";
import { useToast } from "@/components/ui/toaster";
import { isNotifiedType, type NotificationFact } from "@/lib/notify/kinds";
import { claimOnce, notifyMode, subscribeOptIn, type NotifyMode } from "./opt-in";

// Notifications from every page (docs/attention.md, "Notifications"): mounted in the app shell.
// Each event of a notified type that the server says is a fact for this person
// (lib/notify/facts.ts, which also leaves out the kinds they turned off) becomes one
// notification; a lease of theirs entering its last minute (the attention read's `lapsing`)
// becomes one with a renewal on click. Each is shown once across tabs and reloads (claimOnce).
// Where the browser refuses permission, the same notice shows in the page.

/** The person's notification kinds (/account changes them: it sets this key's data). */
export const notificationKindsKey = ["notification-kinds"] as const;

type Notice = { key: string; title: string; body: string; href: string | null; renew?: boolean };

export function NotificationListener() {
  const viewer = useViewer();
  const router = useRouter();
  const { notify } = useToast();
  const mode = useSyncExternalStore(subscribeOptIn, () => notifyMode(viewer.actorId), () => "off" as NotifyMode);
  const attention = useAttention();
  const kinds = useQuery({ queryKey: notificationKindsKey, queryFn: () => unwrap(notificationKindsAction({})), enabled: mode !== "off" });
  const lapsingOff = kinds.data?.off.includes("lapsing") ?? true;

  const tell = useEffectEvent((notice: Notice) => {
    const renew = () => {
      markActive();
      void heldLeasesAction({ renew: true });
    };
    if (mode === "browser") {
      const shown = new Notification(notice.title, { body: notice.body, tag: `claimboard-${notice.key}`, requireInteraction: notice.renew === true });
      shown.onclick = () => {
        window.focus();
        if (notice.renew) renew();
        else if (notice.href) router.push(notice.href);
        shown.close();
      };
      return;
    }
    const action = notice.renew
      ? { label: "Renew", name: `Renew: ${notice.body}`, run: renew }
      : notice.href ? { label: "Open", name: `Open: ${notice.body}`, run: () => router.push(notice.href!) } : undefined;
    notify("info", <span data-testid="in-page-notice"><strong>{notice.title}</strong> {notice.body}</span>, action);
  });

  useEffect(() => {
    if (mode === "off") return;
    return onLiveEvents((events) => {
      const heard = events.flatMap((e) =>
        isNotifiedType(e.type) && e.actor.id !== viewer.actorId && e.taskId ? [{ id: e.eventId, taskId: e.taskId }] : []);
      // At most 100 events a call (the action's bound): a burst is asked about in pieces.
      for (let i = 0; i < heard.length; i += 100) {
        void notificationsAction({ events: heard.slice(i, i + 100) }).then(async (result) => {
          if (!result.ok) return;
          for (const fact of result.value as NotificationFact[]) {
            if (await claimOnce(viewer.actorId, fact.eventId)) {
              tell({ key: fact.eventId, title: fact.title, body: fact.body, href: fact.taskId ? `/tasks/${fact.taskId}` : null });
            }
          }
        });
      }
    });
  }, [mode, viewer.actorId]);

  // A lease of the person's in its last minute: told once per lease end (a renewal makes a new one).
  const lapsing = attention?.items.filter((i) => i.kind === "lapsing") ?? [];
  const lapsingKey = lapsing.map((i) => `${i.taskId}@${i.since}`).join(",");
  useEffect(() => {
    if (mode === "off" || lapsingOff || !lapsingKey) return;
    void (async () => {
      for (const item of lapsing) {
        if (await claimOnce(viewer.actorId, `lapsing:${item.taskId}@${item.since}`)) {
          tell({ key: `lapsing-${item.taskId}`, title: "Your lease lapses in a minute", body: `“${item.title}” in ${item.queue}: renew it to keep it`, href: `/tasks/${item.taskId}`, renew: true });
        }
      }
    })();
    // lapsing is read through its key: the same leases are the same items.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mode, lapsingOff, lapsingKey, viewer.actorId]);

  return null;
}
