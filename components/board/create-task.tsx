"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { createTaskAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { dropTask, putTask } from "@/components/task/cache";
import { errorSentence, unwrap } from "@/components/task/mutations";
import { toWire, type TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { SelectField, TextArea, TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { LIMITS } from "@/lib/limits";

interface Draft {
  title: string;
  description: string;
  queue: string;
  priority: number;
}

/** A placeholder shown in the queued column until the server answers with the real task. */
function placeholder(draft: Draft): TaskView {
  const now = new Date().toISOString();
  return {
    id: `new-${Math.random().toString(36).slice(2)}`,
    ...draft,
    payload: {},
    status: "queued",
    owner: null,
    leaseUntil: null,
    version: 1,
    attempt: 0,
    fence: null,
    failureCount: 0,
    needsCheck: false,
    dependsOn: [],
    blockedBy: [],
    notBefore: null,
    reserves: [],
    submission: null,
    budget: null,
    spent: 0,
    createdAt: now,
    updatedAt: now,
    handoff: null,
    openEffects: [],
    progress: null,
    pending: "Creating…",
  };
}

export function CreateTask({ defaultQueue, queues, onCreated }: { defaultQueue: string; queues: string[]; onCreated: () => void }) {
  const client = useQueryClient();
  const viewer = useViewer();
  const { notify } = useToast();
  // Existing, open queues only (supervisors make new ones on /queues): a typo cannot make a queue.
  const [draft, setDraft] = useState<Draft>({ title: "", description: "", queue: queues.includes(defaultQueue) ? defaultQueue : "default", priority: 0 });
  const mutation = useMutation({
    mutationFn: async (input: Draft) => toWire(await unwrap(createTaskAction(input))) as TaskView,
    onMutate: (input) => {
      const temp = placeholder(input);
      putTask(client, temp, viewer);
      return { temp };
    },
    onError: (error, _input, context) => {
      if (context) dropTask(client, context.temp.id);
      notify("error", errorSentence(error, "create", viewer));
    },
    onSuccess: (task, _input, context) => {
      if (context) dropTask(client, context.temp.id);
      putTask(client, task, viewer);
      notify("info", `Created “${task.title}” (#${task.id}) in ${task.queue}.`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate({ ...draft, title: draft.title.trim(), queue: draft.queue || "default" });
    setDraft({ ...draft, title: "", description: "" });
    onCreated();
  };
  return (
    <form onSubmit={submit} aria-label="New task" className="grid gap-3 rounded-lg border border-slate-200 bg-white p-4 sm:grid-cols-2">
      <div className="sm:col-span-2">
        {/* The form mounts when "New task" opens it: focus goes straight to what is typed first. */}
        <TextField label="Title" required autoFocus maxLength={LIMITS.title} value={draft.title} onChange={(e) => setDraft({ ...draft, title: e.target.value })} />
      </div>
      <div className="sm:col-span-2">
        <TextArea label="Description" maxLength={LIMITS.description} value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} />
      </div>
      <SelectField label="Queue" value={draft.queue} onChange={(e) => setDraft({ ...draft, queue: e.target.value })}>
        {queues.map((queue) => (
          <option key={queue} value={queue}>
            {queue}
          </option>
        ))}
      </SelectField>
      <TextField
        label="Priority"
        type="number"
        min={LIMITS.priority.min}
        max={LIMITS.priority.max}
        step={1}
        hint="Higher is claimed first"
        value={draft.priority}
        onChange={(e) => setDraft({ ...draft, priority: Number(e.target.value) })}
      />
      <div className="flex justify-end gap-2 sm:col-span-2">
        <Button type="submit" tone="primary" disabled={!draft.title.trim()}>
          Create task
        </Button>
      </div>
    </form>
  );
}
