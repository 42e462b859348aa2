"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { noteServerTime } from "@/components/realtime/clock";
import { LiveEvents } from "@/components/realtime/live-status";
import { LeaseKeeper } from "@/components/presence/lease-keeper";
import { NotificationListener } from "@/components/notify/notification-listener";
import { ViewerProvider } from "@/components/realtime/viewer";
import type { Viewer } from "@/components/task/wire";
import { ToastProvider } from "@/components/ui/toaster";

function makeClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Fresh until the event stream says otherwise: lists and tasks refetch when an
        // event touches them, never on a timer or on window focus.
        staleTime: Number.POSITIVE_INFINITY,
        refetchOnWindowFocus: false,
        retry: 1,
      },
      mutations: { retry: false },
    },
  });
}

/**
 * TanStack Query, toasts, the signed-in person and — when there is one — the tab's
 * event stream. `after` is the stream position taken before the page's data was read.
 */
export function Providers({
  viewer,
  after,
  renderedAt,
  children,
}: {
  viewer: Viewer | null;
  after: string | null;
  renderedAt: number;
  children: ReactNode;
}) {
  const [client] = useState(makeClient);
  useEffect(() => {
    if (renderedAt) noteServerTime(renderedAt);
  }, [renderedAt]);
  return (
    <QueryClientProvider client={client}>
      <ToastProvider>
        <ViewerProvider viewer={viewer}>{viewer ? (
            <LiveEvents after={after}>
              <LeaseKeeper />
              <NotificationListener />
              {children}
            </LiveEvents>
          ) : (
            children
          )}</ViewerProvider>
      </ToastProvider>
    </QueryClientProvider>
  );
}
