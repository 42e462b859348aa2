"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ackAction } from "@/app/actions/tasks";
import { useNow } from "@/components/realtime/clock";
import { useViewer } from "@/components/realtime/viewer";
import { Button } from "@/components/ui/button";
import { fetchLease, taskKeys } from "./api";
import { errorSentence, unwrap } from "./mutations";
import type { LeaseView, TaskView } from "./wire";

// "Why is this held?" in one line (docs/leases.md), from GET /tasks/{id}/lease: who holds it
// and until when, how often renewed and how long since progress; or why nobody does. Under
// it, the holder's unread comments, which the holder acknowledges before completing.

const at = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

function ago(iso: string, now: number): string {
  const minutes = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000));
  if (minutes < 1) return "just now";
  if (minutes < 90) return `${minutes} minute${minutes === 1 ? "" : "s"} ago`;
  const hours = Math.round(minutes / 60);
  return hours < 36 ? `${hours} hours ago` : `${Math.round(hours / 24)} days ago`;
}

const times = (n: number) => `${n} time${n === 1 ? "" : "s"}`;

/** The lease in words: the page's one line (exported for its unit test). */
export function leaseSentence(lease: LeaseView, now: number): string {
  const holder = lease.holder?.name ?? "someone";
  switch (lease.state) {
    case "held": {
      const progress = lease.lastProgressAt ? `last progress ${ago(lease.lastProgressAt, now)}` : "no progress reported yet";
      const stalled = lease.maxRenewalsWithoutProgress > 0 && lease.renewalsWithoutProgress > 0
        ? `; renewing without progress (${lease.renewalsWithoutProgress} of ${lease.maxRenewalsWithoutProgress})` : "";
      return `Held by ${holder} until ${at(lease.leaseUntil!)}, renewed ${times(lease.renewals)}, ${progress}${stalled}`;
    }
    case "lapsed":
      return `Free: the lease lapsed at ${at(lease.leaseUntil!)} and nobody has claimed it`;
    case "parked":
      return lease.question && !lease.reasons.includes("awaiting_budget")
        ? `Parked: waiting for an answer to '${lease.question.text}'`
        : "Parked: waiting for a supervisor to raise the budget";
    case "free":
      if (lease.reasons.includes("blocked")) return "Free: waiting for its dependencies";
      if (lease.reasons.includes("scheduled")) return "Free: not claimable before its scheduled time";
      if (lease.reasons.includes("queue_paused")) return "Free: its queue is paused";
      if (lease.reasons.includes("queued")) return "Free: nobody holds it";
      if (lease.reasons.includes("escalated")) return "Nobody holds it: it is in the supervisors' inbox";
      if (lease.reasons.includes("in_review")) return "Nobody holds it: it waits for a reviewer";
      return "Nobody holds it: it is finished";
  }
}

/** `lastEventId`: the history's newest event, so a comment (which changes nothing of the task) reads the lease again. */
export function LeaseLine({ task, lastEventId }: { task: TaskView; lastEventId?: string }) {
  const now = useNow();
  const viewer = useViewer();
  const client = useQueryClient();
  // Keyed on what changes the answer, so a change of the task or a new comment reads it again.
  const lease = useQuery({ queryKey: [...taskKeys.lease(task.id), task.version, task.leaseUntil, task.updatedAt, lastEventId], queryFn: () => fetchLease(task.id) });
  const ack = useMutation({
    mutationFn: (eventId: string) => unwrap(ackAction({ taskId: task.id, version: task.version, eventId })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: taskKeys.detail(task.id) });
      void client.invalidateQueries({ queryKey: taskKeys.events(task.id) });
    },
  });
  if (!lease.data || now === null) return null;
  const unread = lease.data.unread;
  const mine = lease.data.holder?.id === viewer.actorId;
  return (
    <section aria-label="Lease" className="space-y-2 rounded-lg border border-slate-200 bg-white p-3 text-sm">
      <p data-testid="lease-line" data-state={lease.data.state}>{leaseSentence(lease.data, now)}</p>
      {unread.length > 0 ? (
        <div data-testid="unread" className="rounded-md border border-amber-300 bg-amber-50 p-2">
          <p className="font-medium text-amber-900">
            {mine ? "Unread comments for you" : `Unread by ${lease.data.holder?.name ?? "the holder"}`}: completing waits until {mine ? "you mark them read" : "they are acknowledged"}
          </p>
          <ul className="mt-1 space-y-1">
            {unread.map((u) => (
              <li key={u.eventId} data-testid="unread-comment" className="wrap-anywhere">
                <span className="mr-1 rounded bg-amber-200 px-1 text-xs font-semibold text-amber-900">unread</span>
                {u.by.name}: “{u.text}”
              </li>
            ))}
          </ul>
          {mine ? (
            <div className="mt-2 flex items-center gap-2">
              <Button size="sm" onClick={() => ack.mutate(unread.at(-1)!.eventId)} disabled={ack.isPending}>
                Mark read
              </Button>
              {ack.error ? <span className="text-red-700">{errorSentence(ack.error, "acknowledge comments on", viewer)}</span> : null}
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
