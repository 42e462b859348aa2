"use client";

import Link from "next/link";
import type { MouseEvent } from "react";
import { Button, focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { ActorName } from "@/components/task/badges";
import { OpenEffects } from "@/components/task/effects";
import type { TaskView } from "@/components/task/wire";
import { Ago } from "./ago";
import type { InboxTaskView } from "./types";

export type InboxDecision = "requeue" | "resolve" | "cancel";

/** One escalated task: a checkbox for the selection, how long it has waited, every failure reason, the three decisions. */
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
  const headingId = `task-${task.id}-title`;
  return (
    <li>
      <article
        aria-labelledby={headingId}
        className={`rounded-lg border bg-white p-3 shadow-sm ${selected ? "border-blue-600 ring-1 ring-blue-600" : "border-slate-200"}`}
        aria-busy={!!pending}
      >
        <div className="flex items-start gap-3">
          <input
            type="checkbox"
            className={`mt-1 size-4 shrink-0 accent-blue-700 ${focusRing}`}
            checked={selected}
            aria-label={`Select ${task.title}`}
            // onClick, not onChange: only the mouse event knows whether Shift was held.
            onClick={(e: MouseEvent<HTMLInputElement>) => onSelect(e.currentTarget.checked, e.shiftKey)}
            onChange={() => {}}
          />
          <div className="min-w-0 flex-1">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h3 id={headingId} className="font-semibold wrap-anywhere">
                <Link href={`/tasks/${task.id}`} className={`rounded text-blue-800 underline-offset-2 hover:underline ${focusRing}`}>
                  {task.title}
                </Link>
              </h3>
              <span className="text-xs text-slate-700">
                #{task.id} · {task.queue} · {task.failureCount} failure{task.failureCount === 1 ? "" : "s"} · v{task.version}
              </span>
            </div>
            <p className="text-xs text-slate-700" data-testid="escalated-age">
              escalated <Ago iso={item.escalatedAt} now={now} />
            </p>
            <h4 className="sr-only">Failure reasons</h4>
            <ol className="mt-2 space-y-1 text-sm" aria-label={`Failure reasons of ${task.title}`}>
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
            {task.openEffects.length > 0 ? (
              <div className="mt-2">
                <OpenEffects task={task} heading="h4" />
              </div>
            ) : null}
            <div className="mt-3 flex flex-wrap items-center gap-2">
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
        </div>
      </article>
    </li>
  );
}
