"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { heldLeasesAction } from "@/app/actions/leases";
import { onLiveEvents } from "@/components/realtime/listeners";
import { useViewer } from "@/components/realtime/viewer";
import { fetchHistory, fetchTask } from "@/components/task/api";
import { putTask } from "@/components/task/cache";
import { toWire, type Wire } from "@/components/task/wire";
import type { HeldLease } from "@/lib/tasks";
import { idleOverrideMs, isActive, lastActiveAt, markActive, watchActivity } from "./activity";
import { explainLoss, type Loss } from "./loss";
import { LeaseNotices, StillOnIt } from "./notices";
import { renewAfterMs } from "@/lib/cadence";

export type HeldView = Wire<HeldLease>;

/** Events that can end the person's hold on a task when someone else writes them. */
const ENDING = new Set(["claimed", "released", "lease_expired", "failed", "escalated"]);
/**
 * How long the person may be away while their leases are still renewed: the longest
 * personIdleSeconds of the queues they hold in (the server renews each lease only within its
 * own queue's), unless a test shortened it.
 */
const presentFor = (held: Iterable<HeldView>) => idleOverrideMs() ?? Math.max(0, ...[...held].map((h) => h.personIdleSeconds)) * 1000;

/** A tick this late means the page slept (a laptop lid, a frozen tab): catch up at once. */
const WOKE_AFTER_MS = 5000;

/**
 * A person's lease follows their presence (docs/design.md#people-and-agents-on-one-board; docs/attention.md). Mounted
 * in the app shell, on every page and in a background tab too (whose timers Chromium throttles
 * to one a minute: each late tick counts as a wake and renews what is due), this renews every
 * lease they hold at a third of its length while they were active in the app within their
 * queues' personIdleSeconds — one server action for all of them, which renews a lease only
 * within its own queue's; idle longer, it stops and warns before the lapse ("still on it?");
 * woken from sleep, it catches up at once. When a task they held is taken over, released
 * by a supervisor or struck, every open page of theirs says so, live.
 */
export function LeaseKeeper() {
  const viewer = useViewer();
  const client = useQueryClient();
  const [held, setHeld] = useState<HeldView[]>([]);
  const [idle, setIdle] = useState(false);
  const [losses, setLosses] = useState<Loss[]>([]);
  const heldRef = useRef(new Map<string, HeldView>());
  const lastRenew = useRef(0);
  const running = useRef<Promise<void> | null>(null);
  const again = useRef<boolean | null>(null);
  const seen = useRef(new Set<string>());

  const noticeLoss = useCallback(
    async (lost: HeldView) => {
      const [task, events] = await Promise.all([fetchTask(lost.task.id), fetchHistory(lost.task.id)]).catch(() => [null, null]);
      if (!task || !events) return;
      const loss = explainLoss(task, events, viewer.actorId);
      if (!loss || seen.current.has(loss.key)) return;
      seen.current.add(loss.key);
      setLosses((all) => [...all, loss]);
    },
    [viewer.actorId],
  );

  const once = useCallback(
    async (renew: boolean): Promise<void> => {
      if (renew) lastRenew.current = Date.now();
      const idleSeconds = Math.max(0, Math.floor((Date.now() - lastActiveAt()) / 1000));
      const result = await heldLeasesAction(renew ? { renew, idleSeconds } : { renew }).catch(() => null);
      if (!result?.ok) return;
      const now = toWire(result.value) as HeldView[];
      const previous = heldRef.current;
      heldRef.current = new Map(now.map((h) => [h.task.id, h]));
      setHeld(now);
      if (renew) for (const h of now) putTask(client, h.task, viewer);
      for (const [id, h] of previous) if (!heldRef.current.has(id)) void noticeLoss(h);
    },
    [client, viewer, noticeLoss],
  );

  /** One call at a time; calls made meanwhile fold into one more after it (renewing if any asked to). */
  const sync = useCallback(
    (renew: boolean): Promise<void> => {
      if (running.current) {
        again.current = (again.current ?? false) || renew;
        return running.current;
      }
      running.current = (async () => {
        for (let next: boolean | null = renew; next !== null; ) {
          await once(next);
          next = again.current;
          again.current = null;
        }
      })().finally(() => {
        running.current = null;
      });
      return running.current;
    },
    [once],
  );

  useEffect(() => {
    const unwatch = watchActivity();
    void sync(false);
    let lastTick = Date.now();
    const tick = setInterval(() => {
      const now = Date.now();
      const active = isActive(now, presentFor(heldRef.current.values()));
      setIdle(!active);
      const woke = now - lastTick > WOKE_AFTER_MS;
      lastTick = now;
      const leases = [...heldRef.current.values()].filter((h) => !h.attemptLimited && h.leaseSeconds > 0);
      if (woke) return void sync(active && leases.length > 0);
      if (!active || leases.length === 0) return;
      // Asked twice a third: the server renews each lease once a third of it has passed.
      const every = Math.max(1000, renewAfterMs(Math.min(...leases.map((h) => h.leaseSeconds)) * 1000) / 2);
      if (now - lastRenew.current >= every) void sync(true);
    }, 1000);
    // Woken from sleep or a frozen state, back online or shown again: catch up now.
    const wake = () => void sync(isActive(Date.now(), presentFor(heldRef.current.values())) && heldRef.current.size > 0);
    const onVisible = () => document.visibilityState === "visible" && wake();
    document.addEventListener("resume", wake);
    document.addEventListener("visibilitychange", onVisible);
    window.addEventListener("pageshow", wake);
    window.addEventListener("online", wake);
    const unlisten = onLiveEvents((events) => {
      // Someone else changed a task this person holds (or they claimed one elsewhere): look again.
      const relevant = events.some(
        (e) => e.taskId && ((heldRef.current.has(e.taskId) && e.actor.id !== viewer.actorId && ENDING.has(e.type)) ||
          (e.actor.id === viewer.actorId && (e.type === "claimed" || e.type === "started"))),
      );
      if (relevant) void sync(false);
    });
    return () => {
      unwatch();
      clearInterval(tick);
      document.removeEventListener("resume", wake);
      document.removeEventListener("visibilitychange", onVisible);
      window.removeEventListener("pageshow", wake);
      window.removeEventListener("online", wake);
      unlisten();
    };
  }, [sync, viewer.actorId]);

  const stillHere = () => {
    markActive();
    setIdle(false);
    void sync(true);
  };
  const dismiss = (key: string) => setLosses((all) => all.filter((l) => l.key !== key));

  return (
    <div className="pointer-events-none fixed inset-x-0 top-14 z-40 flex flex-col items-center gap-2 px-3" data-testid="lease-keeper" data-held={held.length}>
      {idle && held.length > 0 ? <StillOnIt held={held} onRenew={stillHere} /> : null}
      {held.filter((h) => h.attemptLimited).map((h) => (
        <p key={h.task.id} role="status" className="pointer-events-auto max-w-xl rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950">
          <Link href={`/tasks/${h.task.id}`} className="font-medium underline">{h.task.title}</Link> reached its queue&apos;s attempt
          ceiling: the lease will not be renewed. Finish, release or fail it before it lapses — a lapse counts as a failure.
        </p>
      ))}
      <LeaseNotices losses={losses} onDismiss={dismiss} />
    </div>
  );
}
