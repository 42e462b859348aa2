"use client";

import { useMutation, useQueries, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { addDependenciesAction, editTaskAction, removeDependencyAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { Button, inlineLink } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { waiting, type Task } from "@/lib/tasks/model";
import type { ActionResult } from "@/lib/auth/action";
import { fetchTask, taskKeys } from "./api";
import { putTask } from "./cache";
import { errorSentence, unwrap } from "./mutations";
import { toWire, type TaskView } from "./wire";

// The task page's relations: what it waits for, by title and status, with a dependency added
// by number or removed, and the not-before time set or removed here. Who may change them is
// the engine's (the editor of a queued task); a refusal comes back as its sentence.

/** One change of the task's relations: the server's task put in every cache, or a sentence. */
function useRelationChange(verb: string, onDone: () => void) {
  const client = useQueryClient();
  const viewer = useViewer();
  const { notify } = useToast();
  const [problem, setProblem] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: async (call: () => Promise<ActionResult<Task>>) => toWire(await unwrap(call())) as TaskView,
    onSuccess: (task, _call) => {
      setProblem(null);
      putTask(client, task, viewer);
      void client.invalidateQueries({ queryKey: taskKeys.detail(task.id) });
      notify("info", `Saved: “${task.title}” ${verb}.`);
      onDone();
    },
    onError: (error) => setProblem(errorSentence(error, verb === "now waits for it" ? "add dependencies to" : verb === "no longer waits for it" ? "remove a dependency from" : "edit", viewer)),
  });
  return { mutation, problem, setProblem };
}

/** "“Order the paint” (#4, started), “Book the van” (#7, done)": each by title and status, a link. */
export function DependencyList({ ids }: { ids: string[] }) {
  const found = useQueries({ queries: ids.map((id) => ({ queryKey: taskKeys.detail(id), queryFn: () => fetchTask(id) })) });
  if (ids.length === 0) return <>nothing</>;
  return (
    <span data-testid="dependency-list">
      {ids.flatMap((id, i) => {
        const dep = found[i]?.data;
        const link = (
          <Link key={id} href={`/tasks/${id}`} className={inlineLink}>
            {dep ? <>“{dep.title}” (#{id}, {dep.status})</> : `#${id}`}
          </Link>
        );
        return i === 0 ? [link] : [", ", link];
      })}
    </span>
  );
}

/** Remove beside each dependency, while the task is queued (the machine's removeDependency row), for whoever may edit it. */
export function RemoveDependencies({ task }: { task: TaskView }) {
  const { mutation, problem } = useRelationChange("no longer waits for it", () => {});
  if (task.status !== "queued" || task.pending || task.dependsOn.length === 0) return null;
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2" data-testid="remove-dependencies">
      <span className="text-slate-600">Stop waiting for:</span>
      {task.dependsOn.map((id) => (
        <Button key={id} size="sm" disabled={mutation.isPending}
          onClick={() => mutation.mutate(() => removeDependencyAction({ taskId: task.id, version: task.version, dependency: id }))}>
          Remove #{id}
        </Button>
      ))}
      {problem ? <p role="alert" className="w-full text-sm text-red-800">{problem}</p> : null}
    </div>
  );
}

/** Add a dependency by task id (queued tasks only: the machine's addDependencies row). */
export function AddDependency({ task }: { task: TaskView }) {
  const [value, setValue] = useState("");
  const { mutation, problem, setProblem } = useRelationChange("now waits for it", () => setValue(""));
  if (task.status !== "queued" || task.pending) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const id = value.trim().replace(/^#/, "");
    if (!/^\d+$/.test(id)) return setProblem("Write the number of the task it should wait for, such as 42.");
    if (id === task.id) return setProblem("A task cannot wait for itself.");
    if (task.dependsOn.includes(id)) return setProblem(`It already waits for #${id}.`);
    mutation.mutate(() => addDependenciesAction({ taskId: task.id, version: task.version, dependsOn: [id] }));
  };
  return (
    <form onSubmit={submit} noValidate className="mt-2 flex flex-wrap items-end gap-2" aria-label="Add a dependency">
      <div className="w-40">
        <TextField label="Wait for task #" value={value} onChange={(e) => setValue(e.target.value)} inputMode="numeric" aria-invalid={!!problem} />
      </div>
      <Button type="submit" size="sm" disabled={mutation.isPending}>{mutation.isPending ? "Adding…" : "Add dependency"}</Button>
      {problem ? <p role="alert" className="w-full text-sm text-red-800">{problem}</p> : null}
    </form>
  );
}

/** The browser's local "YYYY-MM-DDTHH:MM" for a datetime-local input. */
const localInput = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

/** Set or remove the not-before time (an edit: queued or escalated, by whoever may edit). */
export function NotBeforeForm({ task, now }: { task: TaskView; now: number }) {
  const [value, setValue] = useState(() => localInput(task.notBefore));
  const { mutation, problem, setProblem } = useRelationChange("has its new not-before time", () => {});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const at = new Date(value);
    if (!value || Number.isNaN(at.getTime())) return setProblem("Choose a date and a time.");
    mutation.mutate(() => editTaskAction({ taskId: task.id, version: task.version, notBefore: at.toISOString() }));
  };
  const scheduled = waiting({ ...task, blockedBy: [] }, now);
  return (
    <form onSubmit={submit} noValidate className="mt-2 flex flex-wrap items-end gap-2" aria-label="Not before">
      <div className="w-56">
        <TextField label="Not before" type="datetime-local" value={value} onChange={(e) => setValue(e.target.value)} aria-invalid={!!problem} />
      </div>
      <Button type="submit" size="sm" disabled={mutation.isPending}>Set time</Button>
      {task.notBefore ? (
        <Button size="sm" disabled={mutation.isPending} onClick={() => mutation.mutate(() => editTaskAction({ taskId: task.id, version: task.version, notBefore: null }))}>
          {scheduled ? "Remove: claimable now" : "Remove"}
        </Button>
      ) : null}
      {problem ? <p role="alert" className="w-full text-sm text-red-800">{problem}</p> : null}
    </form>
  );
}
