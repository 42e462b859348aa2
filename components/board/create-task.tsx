"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { createTaskAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { dropTask, putTask } from "@/components/task/cache";
import { errorSentence, unwrap } from "@/components/task/mutations";
import { toWire, type TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { focusFirstInvalid, SelectField, TextArea, TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { LIMITS, limitText } from "@/lib/limits";

export interface Draft {
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
    checkpoint: null,
    createdAt: now,
    updatedAt: now,
    handoff: null,
    openEffects: [],
    progress: null,
    pending: "Creating…",
  };
}

type Problems = Partial<Record<"title" | "description" | "priority", string>>;

/** Everything the form can judge before sending, all at once, in the app's words (the server still decides). */
export function draftProblems(draft: Draft): Problems {
  const problems: Problems = {};
  const title = draft.title.trim();
  if (!title) problems.title = "Write a title: it is what the board shows.";
  else if (title.length > LIMITS.title) problems.title = `The title is ${limitText(title.length)} characters; at most ${limitText(LIMITS.title)} fit.`;
  if (draft.description.length > LIMITS.description) {
    problems.description = `The description is ${limitText(draft.description.length)} characters; at most ${limitText(LIMITS.description)} fit.`;
  }
  const { min, max } = LIMITS.priority;
  if (!Number.isInteger(draft.priority) || draft.priority < min || draft.priority > max) {
    problems.priority = `The priority must be a whole number from ${min} to ${max}.`;
  }
  return problems;
}

/** A create the server refused, handed back to the form: what was written, and why it was not taken. */
export interface Refused {
  draft: Draft;
  why: string;
}

/**
 * The New-task form: shown at once as a placeholder card, the real one when the server
 * answers. "Create more" keeps the form open, on the same queue and priority, with the
 * title empty and focused, for the next one. A refused create gives back what was written:
 * into the form if it is still open and empty, else through `onRefused`, which opens it again
 * with `refused` (the form closes before the answer, so nothing typed may be lost with it).
 */
export function CreateTask({ defaultQueue, queues, onCreated, onRefused, refused }: {
  defaultQueue: string; queues: string[]; onCreated: () => void; onRefused: (refused: Refused) => void; refused?: Refused | null;
}) {
  const client = useQueryClient();
  const viewer = useViewer();
  const { notify } = useToast();
  // Existing, open queues only (supervisors make new ones on /queues): a typo cannot make a queue.
  const [draft, setDraft] = useState<Draft>(() => refused?.draft ?? { title: "", description: "", queue: queues.includes(defaultQueue) ? defaultQueue : "default", priority: 0 });
  const [priorityText, setPriorityText] = useState(() => String(refused?.draft.priority ?? 0));
  const [more, setMore] = useState(false);
  const [problems, setProblems] = useState<Problems>({});
  const [why, setWhy] = useState<string | null>(refused?.why ?? null);
  const titleRef = useRef<HTMLInputElement>(null);
  // What the refusal handler needs of the form as it is when the answer comes, not when it was sent.
  const open = useRef(true);
  const current = useRef(draft);
  useEffect(() => {
    current.current = draft;
  }, [draft]);
  useEffect(() => {
    open.current = true;
    return () => void (open.current = false);
  }, []);
  const mutation = useMutation({
    mutationFn: async (input: Draft) => toWire(await unwrap(createTaskAction(input))) as TaskView,
    onMutate: (input) => {
      const temp = placeholder(input);
      putTask(client, temp, viewer);
      return { temp };
    },
    onError: (error, input, context) => {
      if (context) dropTask(client, context.temp.id);
      const sentence = errorSentence(error, "create", viewer);
      notify("error", sentence);
      const back = { draft: input, why: `“${input.title}” was not created: ${sentence} What you wrote is back in the form.` };
      if (!open.current) return onRefused(back);
      // Still open ("Create more"): given back unless the person has started the next one.
      if (current.current.title.trim() || current.current.description.trim()) return;
      setDraft(back.draft);
      setPriorityText(String(back.draft.priority));
      setWhy(back.why);
    },
    onSuccess: (task, _input, context) => {
      if (context) dropTask(client, context.temp.id);
      putTask(client, task, viewer);
      notify("info", `Created “${task.title}” (#${task.id}) in ${task.queue}.`);
    },
  });
  const edit = (change: Partial<Draft>, field?: keyof Problems) => {
    setDraft({ ...draft, ...change });
    if (field && problems[field]) setProblems({ ...problems, [field]: undefined });
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = draftProblems(draft);
    setProblems(found);
    if (Object.values(found).some(Boolean)) return focusFirstInvalid(event.currentTarget);
    setWhy(null);
    mutation.mutate({ ...draft, title: draft.title.trim(), queue: draft.queue || "default" });
    setDraft({ ...draft, title: "", description: "" });
    if (more) titleRef.current?.focus();
    else onCreated();
  };
  const count = Object.values(problems).filter(Boolean).length;
  return (
    <form onSubmit={submit} noValidate aria-label="New task" className="grid gap-3 rounded-lg border border-slate-200 bg-white p-4 sm:grid-cols-2">
      <div className="sm:col-span-2">
        {/* The form mounts when "New task" opens it: focus goes straight to what is typed first. */}
        <TextField ref={titleRef} label="Title" required autoFocus limit={LIMITS.title} error={problems.title} value={draft.title} onChange={(e) => edit({ title: e.target.value }, "title")} />
      </div>
      <div className="sm:col-span-2">
        <TextArea label="Description" hint="Markdown: links, lists, **bold**, `code`." limit={LIMITS.description} error={problems.description} value={draft.description} onChange={(e) => edit({ description: e.target.value }, "description")} />
      </div>
      <SelectField label="Queue" value={draft.queue} onChange={(e) => edit({ queue: e.target.value })}>
        {/* A chosen queue archived since stays shown, as what would be sent: never another than the picker says. */}
        {queues.includes(draft.queue) ? null : <option value={draft.queue}>{draft.queue} (no longer open)</option>}
        {queues.map((queue) => (
          <option key={queue} value={queue}>
            {queue}
          </option>
        ))}
      </SelectField>
      <TextField
        label="Priority"
        inputMode="numeric"
        hint="Higher is claimed first"
        error={problems.priority}
        value={priorityText}
        onChange={(e) => {
          setPriorityText(e.target.value);
          edit({ priority: e.target.value.trim() === "" ? NaN : Number(e.target.value) }, "priority");
        }}
      />
      {why ? (
        <p role="alert" className="text-sm text-red-800 sm:col-span-2" data-testid="create-refused">
          {why}
        </p>
      ) : null}
      <div className="flex flex-wrap items-center justify-end gap-3 sm:col-span-2">
        {count > 0 ? (
          <p role="alert" className="mr-auto text-sm text-red-800">
            {count === 1 ? "One field needs fixing: see the field marked above." : `${count} fields need fixing: see the fields marked above.`}
          </p>
        ) : null}
        <label className="inline-flex items-center gap-2 text-sm text-slate-800">
          <input type="checkbox" className="size-4 accent-blue-700" checked={more} onChange={(e) => setMore(e.target.checked)} />
          Create more
        </label>
        <Button type="submit" tone="primary">
          Create task
        </Button>
      </div>
    </form>
  );
}
