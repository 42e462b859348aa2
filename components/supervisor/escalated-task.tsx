"use client";

import Link from "next/link";
import { Button, focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { ActorName } from "@/components/task/badges";
import type { TaskView } from "@/components/task/wire";
import type { InboxTaskView } from "./types";

export type InboxDecision = "requeue" | "resolve" | "cancel";

/** One escalated task: every failure reason, and the three decisions. */
export function EscalatedTask({
  item,
  pending,
  onDecide,
}: {
  item: InboxTaskView;
  pending: string | null;
  onDecide: (decision: InboxDecision, task: TaskView) => void;
}) {
  const { task, failures } = item;
  const headingId = `task-${task.id}-title`;
  return (
    <li>
      <article aria-labelledby={headingId} className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm" aria-busy={!!pending}>
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h3 id={headingId} className="font-semibold break-words">
            <Link href={`/tasks/${task.id}`} className={`rounded text-blue-800 underline-offset-2 hover:underline ${focusRing}`}>
              {task.title}
            </Link>
          </h3>
          <span className="text-xs text-slate-600">
            #{task.id} · {task.queue} · {task.failureCount} failure{task.failureCount === 1 ? "" : "s"} · v{task.version}
          </span>
        </div>
        <h4 className="sr-only">Failure reasons</h4>
        <ol className="mt-2 space-y-1 text-sm" aria-label={`Failure reasons of ${task.title}`}>
          {failures.length === 0 ? <li className="text-slate-500">No failure was recorded.</li> : null}
          {failures.map((failure, i) => (
            <li key={failure.eventId} className="rounded bg-red-50 px-2 py-1 text-red-900">
              <span className="font-medium">{i + 1}.</span> <span data-testid="failure-reason">{failure.reason}</span>{" "}
              <span className="text-xs text-red-800/80">
                — <ActorName actor={failure.actor} />, <LocalTime iso={failure.at} />
              </span>
            </li>
          ))}
        </ol>
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <Button size="sm" tone="primary" disabled={!!pending} onClick={() => onDecide("requeue", task)} aria-label={`Requeue ${task.title}`}>
            Requeue
          </Button>
          <Button size="sm" disabled={!!pending} onClick={() => onDecide("resolve", task)} aria-label={`Resolve ${task.title}`}>
            Resolve
          </Button>
          <Button size="sm" tone="danger" disabled={!!pending} onClick={() => onDecide("cancel", task)} aria-label={`Cancel ${task.title}`}>
            Cancel
          </Button>
          {pending ? <span role="status" className="text-sm text-slate-600">{pending}</span> : null}
        </div>
      </article>
    </li>
  );
}
