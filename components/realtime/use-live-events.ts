"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { supervisorKeys } from "@/components/supervisor/keys";
import { goToSignIn } from "@/components/task/api";
import { noteServerTime, tickNow } from "./clock";
import { invalidateFor, type LiveEvent } from "./invalidate";
import { emitLiveEvents } from "./listeners";

export type LiveStatus = "connecting" | "live" | "reconnecting" | "offline";

/** Events arriving this close together are applied as one batch of invalidations. */
const BATCH_MS = 100;
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * The tab's one EventSource on /api/v1/events (the session cookie authenticates it). Each
 * event invalidates the TanStack Query keys it touches — the task, its history, the lists
 * it can appear in — and what is on screen refetches. Nothing polls.
 *
 * `after` is the stream position the server took before it rendered the page's data, so
 * nothing that commits between that render and this connection is missed. The browser
 * reconnects by itself with Last-Event-ID after a network drop; when the server refuses
 * outright (an HTTP error closes an EventSource for good) this opens a new one from the
 * last cursor seen, after checking the session is still there.
 */
export function useLiveEvents(after: string | null): LiveStatus {
  const client = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>("connecting");
  const start = useRef(after);

  useEffect(() => {
    let source: EventSource | null = null;
    let cursor = start.current;
    let stopped = false;
    let delay = RETRY_MIN_MS;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let flushTimer: ReturnType<typeof setTimeout> | null = null;
    const pending: LiveEvent[] = [];

    const flush = () => {
      flushTimer = null;
      const batch = pending.splice(0);
      invalidateFor(client, batch);
      emitLiveEvents(batch);
    };

    const reopenLater = () => {
      if (stopped) return;
      retry = setTimeout(open, delay);
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    };

    const onRefused = async () => {
      const session = (await fetch("/api/auth/session", { credentials: "same-origin" })
        .then((r) => r.json())
        .catch(() => ({ unknown: true }))) as { actorId?: string; unknown?: boolean };
      if (stopped) return;
      if (!session.actorId && !session.unknown) goToSignIn();
      else reopenLater();
    };

    function open() {
      const url = `/api/v1/events${cursor ? `?after=${encodeURIComponent(cursor)}` : ""}`;
      const es = new EventSource(url, { withCredentials: true });
      source = es;
      es.onopen = () => {
        delay = RETRY_MIN_MS;
        setStatus("live");
      };
      es.addEventListener("task", (message: MessageEvent<string>) => {
        const event = JSON.parse(message.data) as LiveEvent;
        if (message.lastEventId) cursor = message.lastEventId;
        noteServerTime(event.at);
        if (event.type === "lapsed") tickNow();
        pending.push(event);
        flushTimer ??= setTimeout(flush, BATCH_MS);
      });
      // A token began waiting (no event of the feed says so): the fleet on /agents reads again.
      es.addEventListener("fleet", () => void client.invalidateQueries({ queryKey: supervisorKeys.fleet }));
      es.onerror = () => {
        if (es.readyState === EventSource.CONNECTING) {
          setStatus("reconnecting");
          return;
        }
        es.close();
        setStatus("offline");
        void onRefused();
      };
    }

    open();
    return () => {
      stopped = true;
      source?.close();
      if (retry) clearTimeout(retry);
      if (flushTimer) clearTimeout(flushTimer);
    };
  }, [client]);

  return status;
}
