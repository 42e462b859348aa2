"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { LiveStatus } from "./use-live-events";
import { useLiveEvents } from "./use-live-events";

const LiveStatusContext = createContext<LiveStatus | null>(null);

/** Opens the tab's event stream (signed-in pages only) and tells the header how it is. */
export function LiveEvents({ after, children }: { after: string | null; children: ReactNode }) {
  const status = useLiveEvents(after);
  return <LiveStatusContext.Provider value={status}>{children}</LiveStatusContext.Provider>;
}

const labels: Record<LiveStatus, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  offline: "Offline",
};

export function LiveIndicator() {
  const status = useContext(LiveStatusContext);
  if (!status) return null;
  const dot = status === "live" ? "bg-green-500" : status === "offline" ? "bg-red-500" : "bg-amber-400";
  return (
    <span data-testid="live-status" data-status={status} className="inline-flex items-center gap-1.5 text-xs text-slate-600">
      <span aria-hidden className={`h-2 w-2 rounded-full ${dot}`} />
      {labels[status]}
    </span>
  );
}
