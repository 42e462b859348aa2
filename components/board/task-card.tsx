"use client";

import Link from "next/link";
import { useId } from "react";
import { ActorName, NeedsCheckBadge, PriorityBadge } from "@/components/task/badges";
import { BlockedBy, NotBefore } from "@/components/task/graph";
import { LeaseCountdown } from "@/components/task/lease";
import type { TaskAction } from "@/components/task/permissions";
import { TaskActions } from "@/components/task/task-actions";
import { HandoffHint, ProgressLine } from "@/components/task/handoff";
import { HELD, type TaskView } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { focusRing } from "@/components/ui/button";

const CARD_ACTIONS: TaskAction[] = ["claim", "start", "complete", "renew", "release", "fail"];

export function TaskCard({ task }: { task: TaskView }) {
  const titleId = useId();
  const held = HELD.includes(task.status);
  return (
    <article
      aria-labelledby={titleId}
      data-testid={`task-${task.id}`}
      data-status={task.status}
      className={`rounded-lg border bg-white p-3 shadow-sm ${task.pending ? "border-dashed border-blue-400 opacity-80" : "border-slate-200"}`}
    >
      <div className="flex items-start justify-between gap-2">
        <h3 id={titleId} className="min-w-0 text-sm font-semibold break-words">
          {task.pending && !/^\d+$/.test(task.id) ? (
            task.title
          ) : (
            <Link href={`/tasks/${task.id}`} className={`rounded hover:underline ${focusRing}`}>
              {task.title}
            </Link>
          )}
        </h3>
        <PriorityBadge priority={task.priority} />
      </div>
      <p className="mt-0.5 text-xs text-slate-500">
        {/^\d+$/.test(task.id) ? `#${task.id}` : "new"} · {task.queue}
      </p>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
        <dt className="text-slate-500">Owner</dt>
        <dd data-testid="owner">{task.owner ? <ActorName actor={task.owner} /> : <span className="text-slate-500">nobody</span>}</dd>
        {held ? (
          <>
            <dt className="text-slate-500">Lease</dt>
            <dd>
              <LeaseCountdown leaseUntil={task.leaseUntil} />
            </dd>
          </>
        ) : null}
        {task.failureCount > 0 ? (
          <>
            <dt className="text-slate-500">Failures</dt>
            <dd>{task.failureCount}</dd>
          </>
        ) : null}
      </dl>
      {held ? <ProgressLine task={task} compact /> : null}
      <HandoffHint task={task} />
      {task.blockedBy.length > 0 || task.notBefore ? (
        <p className="mt-2 flex flex-col gap-0.5 text-xs text-amber-800">
          <BlockedBy ids={task.blockedBy} />
          <NotBefore iso={task.notBefore} />
        </p>
      ) : null}
      {task.needsCheck || task.pending ? (
        <div className="mt-2 flex flex-wrap gap-1">
          {task.needsCheck ? <NeedsCheckBadge /> : null}
          {task.pending ? <Badge tone="blue">{task.pending}</Badge> : null}
        </div>
      ) : null}
      <div className="mt-3 empty:hidden">
        <TaskActions task={task} only={CARD_ACTIONS} size="sm" />
      </div>
    </article>
  );
}
