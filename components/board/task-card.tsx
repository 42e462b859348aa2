"use client";

import Link from "next/link";
import { useId } from "react";
import { ActorName, NeedsCheckBadge, PriorityBadge } from "@/components/task/badges";
import { BlockedBy, NotBefore } from "@/components/task/graph";
import { LeaseCountdown } from "@/components/task/lease";
import { leaseLapsed, type TaskAction } from "@/components/task/permissions";
import { useNow } from "@/components/realtime/clock";
import { TaskActions } from "@/components/task/task-actions";
import { HandoffHint, ProgressLine } from "@/components/task/handoff";
import { BudgetBar } from "@/components/budgets/budget-bar";
import { HELD, type TaskView } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { focusRing } from "@/components/ui/button";
import { ReservedBy, useReservedBy } from "@/components/task/reserved";

export const CARD_ACTIONS: TaskAction[] = ["claim", "start", "complete", "renew", "release", "fail"];

export const isSaved = (task: TaskView) => /^\d+$/.test(task.id);

/**
 * A compact card (about half the old height): the title and priority on one line, who and
 * the lease on the next with the actions beside them. What only some tasks have (progress,
 * a hand-off, a dependency, needs check) adds a line only when there. `data-board-item`
 * makes it a stop for the board's j/k keys.
 */
export function TaskCard({ task }: { task: TaskView }) {
  const titleId = useId();
  const held = HELD.includes(task.status);
  const unknownEffects = task.openEffects.filter((e) => e.state === "unknown").length;
  // Another holder's reservation: TaskActions offers no Claim (the engine would answer not_ready); the card says why.
  const reserved = useReservedBy().get(task.id);
  const now = useNow(held);
  // A holder that lapsed mid-work may have acted outside the board: say what, before anyone claims.
  const lapsedEffects = held && now !== null && leaseLapsed(task, now) ? task.openEffects : [];
  return (
    <article
      aria-labelledby={titleId}
      data-testid={`task-${task.id}`}
      data-status={task.status}
      data-board-item
      data-task-id={task.id}
      tabIndex={-1}
      className={`rounded-md border bg-white px-2 py-1.5 shadow-sm ${focusRing} focus:outline-2 focus:outline-blue-600 ${task.pending ? "border-dashed border-blue-400 opacity-80" : "border-slate-200"}`}
    >
      <div className="flex items-start justify-between gap-2">
        <h3 id={titleId} className="min-w-0 text-sm leading-5 font-semibold wrap-anywhere">
          {task.pending && !isSaved(task) ? (
            task.title
          ) : (
            <Link href={`/tasks/${task.id}`} className={`rounded hover:underline ${focusRing}`}>
              {task.title}
            </Link>
          )}
        </h3>
        <PriorityBadge priority={task.priority} />
      </div>
      <div className="mt-0.5 flex flex-wrap items-center justify-between gap-x-2 gap-y-1">
        <p className="flex min-w-0 flex-wrap items-center gap-x-1.5 text-xs text-slate-600">
          <span>{isSaved(task) ? `#${task.id}` : "new"}</span>
          <span aria-hidden>·</span>
          <span>{task.queue}</span>
          <span aria-hidden>·</span>
          <span data-testid="owner">{task.owner ? <ActorName actor={task.owner} /> : "nobody"}</span>
          {held ? <LeaseCountdown leaseUntil={task.leaseUntil} /> : null}
          {task.failureCount > 0 ? <span>· {task.failureCount === 1 ? "1 failure" : `${task.failureCount} failures`}</span> : null}
        </p>
        <div className="empty:hidden">
          <TaskActions task={task} only={CARD_ACTIONS} size="sm" />
        </div>
      </div>
      {held ? <ProgressLine task={task} compact /> : null}
      <BudgetBar task={task} compact />
      <HandoffHint task={task} />
      {reserved ? <ReservedBy holders={reserved} /> : null}
      {lapsedEffects.length > 0 ? (
        <p data-testid="lapsed-effects" className="mt-1 text-xs text-amber-900">
          The lease lapsed mid-work; this may have happened: {lapsedEffects.map((e) => (e.key ? `${e.name} (${e.key})` : e.name)).join(", ")}. Check before doing it again.
        </p>
      ) : null}
      {task.blockedBy.length > 0 || task.notBefore ? (
        <p className="mt-1 flex flex-col gap-0.5 text-xs text-amber-800">
          <BlockedBy ids={task.blockedBy} />
          <NotBefore iso={task.notBefore} />
        </p>
      ) : null}
      {task.needsCheck || task.pending || unknownEffects > 0 ? (
        <div className="mt-1 flex flex-wrap gap-1">
          {task.needsCheck ? <NeedsCheckBadge /> : null}
          {unknownEffects > 0 ? (
            <Badge tone="amber" title="An earlier attempt ended without saying what became of an effect outside the board: resolve it on the task page before completing">
              {unknownEffects === 1 ? "effect unknown" : `${unknownEffects} effects unknown`}
            </Badge>
          ) : null}
          {task.pending ? <Badge tone="blue">{task.pending}</Badge> : null}
        </div>
      ) : null}
    </article>
  );
}

/** A column's (or "Your tasks"') cards, one under another. */
export function TaskCards({ tasks }: { tasks: TaskView[] }) {
  return (
    <ul className="flex flex-col gap-1.5">
      {tasks.map((task) => (
        <li key={task.id}>
          <TaskCard task={task} />
        </li>
      ))}
    </ul>
  );
}
