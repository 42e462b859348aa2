"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { notificationKindsAction, setNotificationKindsAction } from "@/app/account/actions";
import { useViewer } from "@/components/realtime/viewer";
import { unwrap } from "@/components/task/mutations";
import { focusRing } from "@/components/ui/button";
import { NOTIFICATION_KIND_LABELS, NOTIFICATION_KINDS, type NotificationKind } from "@/lib/notify/kinds";
import { BrowserNotifications } from "./browser-notifications";
import { notificationKindsKey } from "./notification-listener";

/** Only a supervisor raises a budget: staff are never told of one, so they are not offered it. */
const kindsFor = (role: string): readonly NotificationKind[] => (role === "supervisor" ? NOTIFICATION_KINDS : NOTIFICATION_KINDS.filter((k) => k !== "budget"));

/**
 * /account's notifications: this browser's opt-in, and the kinds the person is told of — kept
 * on the server, so every browser they use follows them (lib/notify/preferences.ts).
 */
export function NotificationSettings() {
  const viewer = useViewer();
  const client = useQueryClient();
  const { data } = useQuery({ queryKey: notificationKindsKey, queryFn: () => unwrap(notificationKindsAction({})) });
  const [problem, setProblem] = useState<string | null>(null);
  const change = async (kind: NotificationKind, on: boolean) => {
    if (!data) return;
    setProblem(null);
    const off = on ? data.off.filter((k) => k !== kind) : [...data.off, kind];
    const result = await setNotificationKindsAction({ off }).catch(() => null);
    if (!result?.ok) return setProblem("Your choice was not saved: try again.");
    client.setQueryData(notificationKindsKey, result.value);
  };
  return (
    <section aria-labelledby="notifications-heading" className="mt-8 space-y-3">
      <h2 id="notifications-heading" className="text-lg font-semibold">Notifications</h2>
      <p className="text-sm text-slate-700">
        From every page of the board, in every tab. Turn them on in each browser you use; what you are told of follows you.
      </p>
      <BrowserNotifications />
      <fieldset className="space-y-1.5" disabled={!data}>
        <legend className="text-sm font-medium">Tell me of</legend>
        {kindsFor(viewer.role).map((kind) => (
          <label key={kind} className="flex items-center gap-2 text-sm">
            <input type="checkbox" className={`h-4 w-4 rounded ${focusRing}`} checked={data ? !data.off.includes(kind) : true}
              onChange={(e) => void change(kind, e.target.checked)} data-testid={`notify-kind-${kind}`} />
            {NOTIFICATION_KIND_LABELS[kind]}
          </label>
        ))}
      </fieldset>
      {problem ? <p role="alert" className="text-sm text-red-800">{problem}</p> : null}
    </section>
  );
}
