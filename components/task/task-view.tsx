"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { useViewer } from "@/components/realtime/viewer";
import { Button, focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { fetchHistory, fetchTask, taskKeys } from "./api";
import { CommentBox } from "./comments";
import { EditTaskForm } from "./edit-form";
import { mayChangeTerms, mayEdit } from "./editing";
import { WorkGraph } from "./graph";
import { ActorName, NeedsCheckBadge, PriorityBadge, StatusBadge } from "./badges";
import { LapsedBadge, LeaseCountdown } from "./lease";
import { LeaseLine } from "./lease-line";
import { Markdown } from "./markdown-view";
import { TaskActions } from "./task-actions";
import { TaskKeys } from "./task-keys";
import { CheckpointLine, HandoffCard, ProgressLine } from "./handoff";
import { OpenEffects } from "./effects";
import { ReviewPanel } from "./review";
import { BudgetBar } from "@/components/budgets/budget-bar";
import { TaskQuestions } from "@/components/questions/task-questions";
import { Timeline } from "./timeline";
import { HELD, type EventView, type TaskView as Task } from "./wire";

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-0.5">
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</dt>
      <dd className="text-sm">{children}</dd>
    </div>
  );
}

const dateTime = (iso: string) => <LocalTime iso={iso} withDate />;

/** One task: its fields and payload, what the viewer may do, and its history by attempt. */
export function TaskView({ initial, events }: { initial: Task; events: EventView[] }) {
  const query = useQuery({ queryKey: taskKeys.detail(initial.id), queryFn: () => fetchTask(initial.id), initialData: initial });
  const task = query.data;
  const viewer = useViewer();
  // The same cache entry the timeline reads: who created and last held the task.
  const history = useQuery({ queryKey: taskKeys.events(initial.id), queryFn: () => fetchHistory(initial.id), initialData: events });
  const [editing, setEditing] = useState(false);
  const editable = mayEdit(task, viewer, history.data);
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <div className="space-y-4">
        <div className="flex items-center justify-between gap-2">
          <Link href="/" className={`rounded text-sm text-blue-700 hover:underline ${focusRing}`}>
            ← Board
          </Link>
          <TaskKeys />
        </div>
        <div>
          <div className="flex flex-wrap items-start justify-between gap-2">
            <h1 className="min-w-0 text-xl font-semibold wrap-anywhere">{task.title}</h1>
            {editable && !editing ? (
              <Button size="sm" onClick={() => setEditing(true)}>
                Edit
              </Button>
            ) : null}
          </div>
          <div className="mt-2 flex flex-wrap items-center gap-2" data-testid="task-status" data-status={task.status}>
            <StatusBadge status={task.status} />
            <LapsedBadge task={task} />
            <PriorityBadge priority={task.priority} />
            {task.needsCheck ? <NeedsCheckBadge /> : null}
            {task.pending ? <span className="text-xs text-blue-700">{task.pending}</span> : null}
          </div>
          <BudgetBar task={task} />
        </div>
        {editing ? <EditTaskForm task={task} onClose={() => setEditing(false)} /> : null}
        {/* Issue 27 item 9: what the task is, then where the last person left it, then the rest. */}
        <section aria-labelledby="description-heading">
          <h2 id="description-heading" className="sr-only">
            Description
          </h2>
          {task.description ? (
            <Markdown source={task.description} className="text-sm text-slate-800" />
          ) : (
            <p className="text-sm text-slate-600">No description.</p>
          )}
        </section>
        <HandoffCard task={task} />
        <OpenEffects task={task} />
        <ReviewPanel task={task} history={history.data} />
        <TaskQuestions task={task} />
        {/^\d+$/.test(task.id) ? <LeaseLine task={task} lastEventId={history.data.at(-1)?.id} /> : null}
        {HELD.includes(task.status) ? <ProgressLine task={task} /> : null}
        <CheckpointLine task={task} />
        <section aria-label="Actions" className="rounded-lg border border-slate-200 bg-white p-3">
          <TaskActions task={task} explain />
          {task.status === "done" || task.status === "cancelled" ? (
            <p className="text-sm text-slate-500">This task is {task.status}: nothing more to do.</p>
          ) : null}
        </section>
        <dl className="grid grid-cols-2 gap-x-4 gap-y-3 rounded-lg border border-slate-200 bg-white p-3 sm:grid-cols-3">
          <Field label="Queue">{task.queue}</Field>
          <Field label="Owner">{task.owner ? <ActorName actor={task.owner} /> : "nobody"}</Field>
          <Field label="Lease">{HELD.includes(task.status) ? <LeaseCountdown leaseUntil={task.leaseUntil} /> : "—"}</Field>
          <Field label="Priority">{task.priority}</Field>
          <Field label="Created">{dateTime(task.createdAt)}</Field>
          <Field label="Updated">{dateTime(task.updatedAt)}</Field>
        </dl>
        {/* What the engine keeps (a side panel, small): what agents and the API speak of. */}
        <aside aria-label="Engine fields" className="rounded-lg border border-dashed border-slate-300 bg-slate-50 px-3 py-2">
          <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs sm:grid-cols-5 [&_dd]:text-xs">
            <Field label="Id">#{task.id}</Field>
            <Field label="Status">{task.status}</Field>
            <Field label="Version">{task.version}</Field>
            <Field label="Failures">{task.failureCount}</Field>
            <Field label="Needs check">{task.needsCheck ? "yes" : "no"}</Field>
          </dl>
        </aside>
        {/^\d+$/.test(task.id) ? <WorkGraph task={task} editable={editable} termsEditable={editable && mayChangeTerms(task, viewer)} /> : null}
        {task.payload && Object.keys(task.payload).length > 0 ? (
          <section aria-labelledby="payload-heading">
            <h2 id="payload-heading" className="text-sm font-semibold">
              Payload
            </h2>
            <pre data-testid="payload" className="mt-1 max-h-96 overflow-auto rounded-lg bg-slate-900 p-3 text-xs text-slate-100">
              {JSON.stringify(task.payload, null, 2)}
            </pre>
          </section>
        ) : null}
      </div>
      <section aria-labelledby="history-heading">
        <h2 id="history-heading" className="mb-2 text-lg font-semibold">
          History
        </h2>
        <div className="mb-3">
          <CommentBox task={task} />
        </div>
        <Timeline taskId={task.id} initial={events} />
      </section>
    </div>
  );
}
