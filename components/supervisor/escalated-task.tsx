"use client";

import Link from "next/link";
import { useState, type MouseEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { ActorName } from "@/components/task/badges";
import { OpenEffects } from "@/components/task/effects";
import type { TaskView } from "@/components/task/wire";
import { Ago } from "./ago";
import type { InboxTaskView } from "./types";

export type InboxDecision = "requeue" | "resolve" | "cancel";

/**
 * One escalated task, one row (issue 27 item 7): a checkbox for the selection, the title,
 * how many failures and the last reason, how long it has waited, the decisions. "Details"
 * opens every failure reason (who, when) and its open effects under the row.
 */
export function EscalatedTask({
  item,
  pending,
  selected,
  now,
  onSelect,
  onDecide,
  onRequeueTo,
}: {
  item: InboxTaskView;
  pending: string | null;
  selected: boolean;
  /** The estimated database time, or null before hydration (then the time, not the age, shows). */
  now: number | null;
  /** Shift-click selects the range from the last row clicked. */
  onSelect: (selected: boolean, range: boolean) => void;
  onDecide: (decision: InboxDecision, task: TaskView) => void;
  /** "Requeue to…": another queue (the dialog is the inbox's). */
  onRequeueTo: (task: TaskView) => void;
}) {
  const { task, failures } = item;
  const [open, setOpen] = useState(false);
  const headingId = `task-${task.id}-title`;
  const detailsId = `task-${task.id}-details`;
  const count = Math.max(task.failureCount, failures.length);
  const effects = task.openEffects.length;
  return (
    <li>
      <article
        aria-labelledby={headingId}
        className={`rounded-md border bg-white px-3 py-2 ${selected ? "border-blue-600 ring-1 ring-blue-600" : "border-slate-200"}`}
        aria-busy={!!pending}
      >
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2 md:flex-nowrap">
          <input
            type="checkbox"
            className={`size-4 shrink-0 accent-blue-700 ${focusRing}`}
            checked={selected}
            aria-label={`Select ${task.title}`}
            // onClick, not onChange: only the mouse event knows whether Shift was held.
            onClick={(e: MouseEvent<HTMLInputElement>) => onSelect(e.currentTarget.checked, e.shiftKey)}
            onChange={() => {}}
          />
          <button
            type="button"
            aria-expanded={open}
            aria-controls={detailsId}
            aria-label={`Details of ${task.title}`}
            onClick={() => setOpen(!open)}
            className={`shrink-0 rounded px-1 text-slate-700 hover:bg-slate-100 ${focusRing}`}
          >
            <span aria-hidden className={`inline-block transition-transform ${open ? "rotate-90" : ""}`}>▸</span>
          </button>
          <div className="min-w-0 flex-1 basis-48">
            <div className="flex min-w-0 flex-wrap items-baseline gap-x-2 md:flex-nowrap">
              <h3 id={headingId} className="max-w-full min-w-0 font-semibold">
                {/* A block of 24 px: the touch target stays whole though the title is cut. */}
                <Link href={`/tasks/${task.id}`} title={task.title} className={`block truncate rounded leading-6 text-blue-800 underline-offset-2 hover:underline ${focusRing}`}>
                  {task.title}
                </Link>
              </h3>
              <span className="shrink-0 text-xs text-slate-700" data-testid="escalated-age">
                escalated <Ago iso={item.escalatedAt} now={now} />
              </span>
            </div>
            <p className="flex min-w-0 flex-wrap items-baseline gap-x-2 text-xs text-slate-700 md:flex-nowrap">
              <span className="shrink-0">
                #{task.id} · {task.queue} ·{" "}
                <span data-testid="failure-count" className="font-semibold text-red-900">
                  {count} failure{count === 1 ? "" : "s"}
                </span>
              </span>
              {effects > 0 ? (
                <Badge tone="amber" title="Something began outside the board and its outcome is unknown: see Details">
                  {effects} open effect{effects === 1 ? "" : "s"}
                </Badge>
              ) : null}
              <span className="max-w-full min-w-0 truncate text-red-900" data-testid="last-reason" title={item.reason}>
                {item.reason}
              </span>
            </p>
          </div>
          <div className="flex max-w-full flex-wrap items-center gap-1.5 md:shrink-0">
            <Button size="sm" tone="primary" disabled={!!pending} onClick={() => onDecide("requeue", task)} aria-label={`Requeue ${task.title}`}>
              Requeue
            </Button>
            <Button size="sm" disabled={!!pending} onClick={() => onRequeueTo(task)} aria-label={`Requeue to another queue: ${task.title}`}>
              Requeue to…
            </Button>
            <Button size="sm" disabled={!!pending} onClick={() => onDecide("resolve", task)} aria-label={`Resolve ${task.title}`}>
              Resolve
            </Button>
            <Button size="sm" tone="danger" disabled={!!pending} onClick={() => onDecide("cancel", task)} aria-label={`Cancel ${task.title}`}>
              Cancel…
            </Button>
            {pending ? <span role="status" className="text-sm text-slate-700">{pending}</span> : null}
          </div>
        </div>
        <div id={detailsId} hidden={!open} className="mt-2 border-t border-slate-100 pt-2 md:pl-14">
          {open ? (
            <>
              <p className="text-xs text-slate-700">
                Priority {task.priority} · v{task.version}
              </p>
              <h4 className="sr-only">Failure reasons</h4>
              <ol className="mt-1 space-y-1 text-sm" aria-label={`Failure reasons of ${task.title}`}>
                {failures.length === 0 ? <li className="text-slate-700">No failure was recorded: {item.reason}</li> : null}
                {failures.map((failure, i) => (
                  <li key={failure.eventId} className="rounded bg-red-50 px-2 py-1 text-red-900">
                    <span className="font-medium">{i + 1}.</span> <span data-testid="failure-reason">{failure.reason}</span>{" "}
                    <span className="text-xs text-red-900">
                      — <ActorName actor={failure.actor} />, <LocalTime iso={failure.at} />
                    </span>
                  </li>
                ))}
              </ol>
              {effects > 0 ? (
                <div className="mt-2">
                  <OpenEffects task={task} heading="h4" />
                </div>
              ) : null}
            </>
          ) : null}
        </div>
      </article>
    </li>
  );
}
