"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { queueSettingsListAction } from "@/app/queues/actions";
import { unwrap } from "@/components/task/mutations";
import { HELD, toWire } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { Button, focusRing } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { LocalTime } from "@/components/ui/local-time";
import { supervisorKeys } from "./keys";
import { NewQueue } from "./new-queue";
import { ArchiveControl } from "./queue-archive";
import { QueueCounts, shown } from "./queue-counts";
import { QueueForm } from "./queue-form";
import { usePauseQueue } from "./queue-pause";
import type { QueueSettingsView } from "./types";

/** "2 min", "90 s", "1 h": a lease as people say it (the exact seconds are in the drawer). */
export function leaseWords(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function StateBadges({ queue }: { queue: QueueSettingsView }) {
  return queue.breakerTrippedAt ? (
    <Badge tone="red" title={queue.breakerReason ?? undefined}>
      breaker tripped
    </Badge>
  ) : (
    <Badge tone="green" title="The breaker is closed: claims are handed out.">healthy</Badge>
  );
}

/** The paused toggle: a switch whose state is the queue's, flipped at once, with Undo on its toast. */
function PauseSwitch({ queue, pause }: { queue: QueueSettingsView; pause: ReturnType<typeof usePauseQueue> }) {
  const busy = pause.pendingFor(queue.name);
  return (
    <button
      type="button"
      role="switch"
      aria-checked={queue.paused}
      aria-label={`Pause ${queue.name}`}
      disabled={busy}
      onClick={() => pause.toggle(queue)}
      title={queue.paused ? `Paused${queue.pausedBy ? ` by ${queue.pausedBy}` : ""}: claims hand out nothing` : "Claims hand out its tasks"}
      className={`inline-flex items-center gap-2 rounded-full text-xs font-medium ${focusRing}`}
    >
      <span aria-hidden className={`relative inline-block h-5 w-9 rounded-full transition-colors ${queue.paused ? "bg-amber-600" : "bg-slate-300"}`}>
        <span className={`absolute top-0.5 size-4 rounded-full bg-white shadow transition-all ${queue.paused ? "left-4.5" : "left-0.5"}`} />
      </span>
      {/* On a phone the switch alone (its colour, and aria-checked) says it: the word would push it off-screen. */}
      <span className={`max-sm:hidden ${queue.paused ? "text-amber-900" : "text-slate-700"}`}>{queue.paused ? "paused" : "running"}</span>
    </button>
  );
}

const num = "px-3 py-2 text-right tabular-nums max-sm:px-2";
/**
 * On a phone the table keeps what is acted on in a row (the name, which opens the drawer,
 * the queued and escalated links, the pause switch); held, the pace, the lease and the
 * Settings button are in the drawer the name opens, so nothing sits off to the right.
 */
const PHONE_HIDDEN = "max-sm:hidden";

/** One open queue, one row: what waits, what is held, what needs a decision, the pace, the switch, the lease. */
function QueueRow({ queue, onOpen, pause }: { queue: QueueSettingsView; onOpen: () => void; pause: ReturnType<typeof usePauseQueue> }) {
  const held = HELD.reduce((n, s) => n + queue.counts[s], 0);
  const escalated = queue.counts.escalated;
  return (
    <tr className="border-t border-slate-100 align-middle" data-testid={`queue-row-${queue.name}`}>
      <th scope="row" className="px-3 py-2 text-left font-normal max-sm:max-w-28 max-sm:px-2">
        <div className="flex flex-wrap items-center gap-2">
          {/* The name opens the drawer too: on a phone it is the way in (the Settings column is hidden there). */}
          <button type="button" onClick={onOpen} aria-haspopup="dialog" className={`rounded text-left font-semibold whitespace-nowrap text-blue-800 hover:underline max-sm:break-all max-sm:whitespace-normal ${focusRing}`}>
            {queue.name}
          </button>
          <StateBadges queue={queue} />
        </div>
        {queue.description ? <p className="max-w-72 truncate text-xs text-slate-600 max-sm:max-w-28" title={queue.description}>{queue.description}</p> : null}
      </th>
      <td className={num} data-testid="queued">
        <Link className={`rounded text-blue-800 hover:underline ${focusRing}`} href={`/?queue=${encodeURIComponent(queue.name)}&status=queued`} aria-label={`${shown(queue.counts.queued, 1000)} queued in ${queue.name}`}>
          {shown(queue.counts.queued, 1000)}
        </Link>
      </td>
      <td className={`${num} ${PHONE_HIDDEN}`} data-testid="held">{shown(held, 1000)}</td>
      <td className={num} data-testid="escalated">
        {escalated > 0 ? (
          <Link className={`rounded font-semibold text-red-800 hover:underline ${focusRing}`} href={`/inbox?queue=${encodeURIComponent(queue.name)}`} aria-label={`${shown(escalated, 1000)} escalated in ${queue.name}: open the inbox`}>
            {shown(escalated, 1000)}
          </Link>
        ) : (
          "0"
        )}
      </td>
      <td className={`${num} ${PHONE_HIDDEN}`} data-testid="done-per-hour">{queue.throughput.lastHour.toLocaleString("en-GB")}</td>
      <td className="px-3 py-2 max-sm:px-2">
        <PauseSwitch queue={queue} pause={pause} />
      </td>
      <td className={`${num} ${PHONE_HIDDEN}`} data-testid="lease">
        <span title={`${queue.leaseSeconds.toLocaleString("en-GB")} seconds`}>{leaseWords(queue.leaseSeconds)}</span>
      </td>
      <td className={`px-3 py-2 text-right ${PHONE_HIDDEN}`}>
        <Button size="sm" onClick={onOpen} aria-label={`Open the settings of ${queue.name}`} aria-haspopup="dialog">
          Settings
        </Button>
      </td>
    </tr>
  );
}

/** The drawer: everything about one queue — its state, every count, its settings, Archive. */
function QueueDrawer({ queue, onClose, pause }: { queue: QueueSettingsView; onClose: () => void; pause: ReturnType<typeof usePauseQueue> }) {
  return (
    <Dialog open side onClose={onClose} title={`Queue ${queue.name}`}>
      <div className="space-y-3">
        <div className="flex flex-wrap items-center gap-2">
          {queue.paused ? <Badge tone="amber">paused</Badge> : null}
          <StateBadges queue={queue} />
        </div>
        {queue.description ? <p className="text-sm text-slate-700" data-testid="queue-description">{queue.description}</p> : null}
        <QueueCounts queue={queue} />
        {queue.paused ? (
          <p className="text-sm text-amber-900" data-testid="paused-note">
            Paused{queue.pausedBy ? ` by ${queue.pausedBy}` : ""}
            {queue.pausedAt ? <> since <LocalTime iso={queue.pausedAt} withDate /></> : null}: claims hand out nothing; owners finish what they hold.
          </p>
        ) : null}
        {queue.breakerTrippedAt ? (
          <p className="text-sm text-red-900">
            {queue.breakerReason} (since <LocalTime iso={queue.breakerTrippedAt} withDate />). Reset it from the inbox.
          </p>
        ) : null}
        <div className="flex flex-wrap gap-2">
          <Button size="sm" disabled={pause.pendingFor(queue.name)} onClick={() => pause.toggle(queue)}>
            {queue.paused ? `Resume ${queue.name}` : `Pause ${queue.name}`}
          </Button>
          <ArchiveControl queue={queue} />
        </div>
        <h3 className="pt-2 font-semibold">Settings</h3>
        <QueueForm queue={queue} />
      </div>
    </Dialog>
  );
}

/** An archived queue: its state, counts and history kept; only Restore is offered. */
function ArchivedQueue({ queue }: { queue: QueueSettingsView }) {
  return (
    <section aria-label={`Archived queue ${queue.name}`} className="rounded-lg border border-slate-200 bg-slate-50 p-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-semibold">{queue.name}</h3>
        <Badge tone="slate">archived</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        Archived{queue.archivedBy ? ` by ${queue.archivedBy}` : ""}
        {queue.archivedAt ? <> on <LocalTime iso={queue.archivedAt} withDate /></> : null}: hidden from the pickers; no new tasks or claims.
      </p>
      <QueueCounts queue={queue} />
      <div className="mt-2">
        <ArchiveControl queue={queue} />
      </div>
    </section>
  );
}

const th = "px-3 py-2 font-semibold max-sm:px-2";

/**
 * Every queue (issue 27 item 7): one dense row each — queued, held, escalated, done in the
 * last hour, the paused switch, the lease — with its settings in a drawer, and the archived
 * ones apart. Refetched whenever events arrive (every task that moves changes a count),
 * through the supervisors' query keys (components/realtime/invalidate.ts).
 */
export function QueueSettings({ initial }: { initial: QueueSettingsView[] }) {
  const { data } = useQuery({
    queryKey: supervisorKeys.queues,
    queryFn: async () => toWire(await unwrap(queueSettingsListAction({}))),
    initialData: initial,
  });
  const [openName, setOpenName] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const pause = usePauseQueue();
  const open = data.filter((q) => !q.archivedAt);
  const archived = data.filter((q) => q.archivedAt);
  // By name, from the live list: the drawer follows changes, and closes when its queue is archived.
  const drawn = open.find((q) => q.name === openName) ?? null;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-700">
          {open.length} open queue{open.length === 1 ? "" : "s"}. Counts move live; the switch pauses claiming at once.
        </p>
        <Button tone="primary" size="sm" onClick={() => setCreating(true)} aria-haspopup="dialog">
          New queue
        </Button>
      </div>
      <div role="region" aria-label="Queues table" tabIndex={0} className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm focus-visible:outline-2 focus-visible:outline-blue-600">
        <table className="min-w-full text-sm" aria-label="Queues">
          <thead className="bg-slate-100 text-xs text-slate-700 uppercase">
            <tr>
              <th scope="col" className={`${th} text-left`}>Queue</th>
              <th scope="col" className={`${th} text-right`}>Queued</th>
              <th scope="col" className={`${th} text-right ${PHONE_HIDDEN}`} title="Claimed or started: an owner works on it under a lease">Held</th>
              <th scope="col" className={`${th} text-right`}>Escalated</th>
              <th scope="col" className={`${th} text-right ${PHONE_HIDDEN}`} title="Completed, resolved or approved in the last hour">Done/h</th>
              <th scope="col" className={`${th} text-left`}>Paused</th>
              <th scope="col" className={`${th} text-right ${PHONE_HIDDEN}`}>Lease</th>
              <th scope="col" className={`${th} ${PHONE_HIDDEN}`}><span className="sr-only">Settings</span></th>
            </tr>
          </thead>
          <tbody>
            {open.map((queue) => (
              <QueueRow key={queue.name} queue={queue} pause={pause} onOpen={() => setOpenName(queue.name)} />
            ))}
          </tbody>
        </table>
      </div>
      {drawn ? <QueueDrawer queue={drawn} pause={pause} onClose={() => setOpenName(null)} /> : null}
      <Dialog open={creating} side onClose={() => setCreating(false)} title="New queue">
        <NewQueue onCreated={() => setCreating(false)} />
      </Dialog>
      {archived.length > 0 ? (
        <div>
          <h2 className="mb-2 font-semibold text-slate-800">Archived queues</h2>
          <ul className="space-y-3">
            {archived.map((queue) => (
              <li key={queue.name}>
                <ArchivedQueue queue={queue} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
