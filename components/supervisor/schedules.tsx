"use client";

import { EmptyState } from "@/components/ui/empty-state";
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adoptScheduleAction, createScheduleAction, deleteScheduleAction, schedulesAction, updateScheduleAction } from "@/app/schedules/actions";
import { ActionFailure, unwrap } from "@/components/task/mutations";
import { toWire, type Wire } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { SelectField, TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { useToast } from "@/components/ui/toaster";
import type { Schedule } from "@/lib/schedules/ops";
import { supervisorKeys } from "./keys";
import { supervisorErrorSentence, useSupervisorCall } from "./use-supervisor";

export type ScheduleView = Wire<Schedule>;

const FIELD_NAMES: Record<string, string> = { name: "Name", cron: "Cron", timezone: "Time zone", queue: "Queue", "task.title": "Task title" };

function CreateSchedule({ queues }: { queues: string[] }) {
  const { notify } = useToast();
  const [problem, setProblem] = useState<string | null>(null);
  const create = useSupervisorCall(createScheduleAction, { verb: "create", toastErrors: false });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    setProblem(null);
    create.mutate(
      {
        name: text("name"), cron: text("cron"), timezone: text("timezone") || "UTC", queue: text("queue"),
        task: { title: text("title") }, overlap: text("overlap") as "skip" | "allow", missed: text("missed") as "skip" | "once",
      },
      {
        onSuccess: (made) => {
          formElement.reset();
          notify("info", `Schedule ${made.name} created; its first task comes ${made.nextAt ? "at its next run" : "when resumed"}.`);
        },
        onError: (error) => {
          const field = error instanceof ActionFailure ? error.error.field : undefined;
          setProblem(field ? `${FIELD_NAMES[field] ?? field}: ${(error as ActionFailure).error.message.replace(new RegExp(`^${field.replace(".", "\\.")}:? `), "")}.` : supervisorErrorSentence(error, "create"));
        },
      },
    );
  };
  return (
    <form noValidate onSubmit={onSubmit} aria-label="Create a schedule" className="space-y-3 rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <h2 className="font-semibold">Create a schedule</h2>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField name="name" label="Name" required autoComplete="off" />
        <TextField name="title" label="Task title" hint="Each run creates a task with this title" required autoComplete="off" />
        <TextField name="cron" label="Cron" hint="5 fields: minute hour day month weekday, e.g. 0 9 * * 1-5" required autoComplete="off" defaultValue="0 9 * * 1-5" />
        <TextField name="timezone" label="Time zone" hint="IANA, e.g. Europe/Berlin; daylight saving handled" autoComplete="off" defaultValue="UTC" />
        <SelectField name="queue" label="Queue" defaultValue={queues[0]}>
          {queues.map((q) => <option key={q} value={q}>{q}</option>)}
        </SelectField>
        <SelectField name="overlap" label="While the last run's task is unfinished" defaultValue="skip">
          <option value="skip">skip this run</option>
          <option value="allow">create another</option>
        </SelectField>
        <SelectField name="missed" label="Runs missed while no server ran" defaultValue="skip">
          <option value="skip">skip them</option>
          <option value="once">one catch-up task</option>
        </SelectField>
      </div>
      <Button type="submit" tone="primary" disabled={create.isPending}>{create.isPending ? "Creating…" : "Create schedule"}</Button>
      {problem ? <p role="alert" className="text-sm text-red-800">{problem}</p> : null}
    </form>
  );
}

function lastResult(s: ScheduleView): string {
  const r = s.lastResult;
  if (!r) return "no run yet";
  if (r.kind === "created") return `made task ${r.taskId}`;
  if (r.kind === "backfilled") return `made catch-up task ${r.taskId}`;
  if (r.kind === "skipped") return r.reason === "overlap" ? "skipped: the last task was unfinished" : "skipped missed runs";
  return `failed: ${r.reason}`;
}

/** Supervisors' schedules: each one's next run and last result, pause/resume, delete. */
export function Schedules({ initial, queues }: { initial: ScheduleView[]; queues: string[] }) {
  const { notify } = useToast();
  const { data } = useQuery({ queryKey: supervisorKeys.schedules, queryFn: async () => toWire(await unwrap(schedulesAction({}))), initialData: initial });
  const update = useSupervisorCall(updateScheduleAction, { verb: "change", onSuccess: (s) => notify("info", `Schedule ${s.name} ${s.paused ? "paused" : "resumed"}.`) });
  const remove = useSupervisorCall(deleteScheduleAction, { verb: "delete", onSuccess: () => notify("info", "Schedule deleted; the tasks it made stay.") });
  const adopt = useSupervisorCall(adoptScheduleAction, { verb: "change", onSuccess: (s) => notify("info", `Schedule ${s.name} adopted: it acts with your authority${s.paused ? "" : " and runs again"}.`) });
  return (
    <div className="space-y-6">
      <CreateSchedule queues={queues} />
      <section aria-labelledby="schedules-heading">
        <h2 id="schedules-heading" className="mb-2 text-lg font-semibold">Schedules</h2>
        {data.length === 0 ? (
          <EmptyState testId="schedules-empty" action={{ label: "Create a schedule", focus: 'form[aria-label="Create a schedule"] input' }}>
            No schedules yet: a schedule creates a task for routine work that recurs (every weekday at 9, say).
          </EmptyState>
        ) : null}
        <ul className="space-y-2">
          {data.map((s) => (
            <li key={s.id} className="rounded-lg border border-slate-200 bg-white p-3" data-testid="schedule">
              <div className="flex flex-wrap items-center gap-2">
                <span className="min-w-0 flex-1 font-medium break-words">{s.name}</span>
                {s.authorityEndedAt ? <Badge tone="amber">paused: {s.authorityEndedReason}</Badge> : s.paused ? <Badge tone="amber">paused</Badge> : <Badge tone="green">active</Badge>}
                {s.authorityEndedAt ? (
                  <Button size="sm" tone="primary" aria-label={`Adopt schedule ${s.name}`} disabled={adopt.isPending} onClick={() => adopt.mutate({ id: s.id })}>Adopt</Button>
                ) : null}
                <Button size="sm" aria-label={`${s.paused ? "Resume" : "Pause"} schedule ${s.name}`} disabled={update.isPending} onClick={() => update.mutate({ id: s.id, paused: !s.paused })}>{s.paused ? "Resume" : "Pause"}</Button>
                <Button size="sm" tone="danger" aria-label={`Delete schedule ${s.name}`} disabled={remove.isPending} onClick={() => remove.mutate({ id: s.id })}>Delete</Button>
              </div>
              <p className="mt-1 text-sm text-slate-600">
                <code>{s.cron}</code> ({s.timezone}) → {s.queue}: “{s.task.title}”
              </p>
              <p className="mt-1 text-sm">
                Next run: {s.nextAt ? <LocalTime iso={s.nextAt} withDate /> : s.authorityEndedAt ? "none until a supervisor adopts it" : "none while paused"} · Last: {lastResult(s)}
              </p>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
