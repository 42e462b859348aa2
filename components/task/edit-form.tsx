"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { listQueuesAction } from "@/app/actions/board";
import { useState, type FormEvent } from "react";
import type { TaskChanges } from "@/lib/client";
import { editTaskAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { useToast } from "@/components/ui/toaster";
import { Button } from "@/components/ui/button";
import { focusFirstInvalid, SelectField, TextArea, TextField } from "@/components/ui/field";
import { fetchHistory, queueKeys, taskKeys } from "./api";
import { putTask } from "./cache";
import { conflictSentence, draftOf, fieldWords, lastChangedBy, mayChangeTerms, mergeDraft, readEdit, type EditClash, type EditDraft, type EditField } from "./editing";
import { ActionFailure, errorSentence, restore, snapshot, unwrap } from "./mutations";
import { toWire, type TaskView } from "./wire";
import { LIMITS } from "@/lib/limits";

/**
 * The edit mutation: the new values shown at once (heading, board cards), put back if the
 * server says no. A version_conflict answers with the task as it is now: the form merges it
 * (EditTaskForm), so saving again applies only what the person changed.
 */
function useEditMutation(onConflict: (current: TaskView) => void, onSaved: () => void) {
  const client = useQueryClient();
  const viewer = useViewer();
  const { notify } = useToast();
  return useMutation({
    mutationFn: async ({ base, changes }: { base: TaskView; changes: TaskChanges }) =>
      // The payload came from JSON.parse: JSON by construction.
      toWire(await unwrap(editTaskAction({ taskId: base.id, version: base.version, ...changes } as Parameters<typeof editTaskAction>[0]))) as TaskView,
    onMutate: async ({ base, changes }) => {
      await client.cancelQueries({ queryKey: taskKeys.all });
      const saved = snapshot(client);
      putTask(client, { ...base, ...changes, version: base.version + 1, pending: "Saving…" }, viewer);
      return { saved };
    },
    onError: (error, { base }, context) => {
      if (context) restore(client, context.saved);
      const current = error instanceof ActionFailure ? error.error.task : undefined;
      if (current) putTask(client, current, viewer);
      void client.invalidateQueries({ queryKey: taskKeys.events(base.id) });
      if (error instanceof ActionFailure && error.error.code === "version_conflict" && current) onConflict(current);
    },
    onSuccess: (task) => {
      putTask(client, task, viewer);
      notify("info", `Saved your changes to “${task.title}”.`);
      onSaved();
    },
  });
}

/** Edit title, description, queue, priority and payload of a queued or escalated task. */
export function EditTaskForm({ task, onClose }: { task: TaskView; onClose: () => void }) {
  const viewer = useViewer();
  const [draft, setDraft] = useState<EditDraft>(() => draftOf(task));
  // The task as the form last knew it: what the person changed is what differs from it.
  const [base, setBase] = useState<TaskView>(task);
  // A sentence per field the form refuses (all at once), and one for a refusal of the server.
  const [problems, setProblems] = useState<Partial<Record<EditField, string>>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [clashes, setClashes] = useState<EditClash[]>([]);
  const [by, setBy] = useState<string | null>(null);
  // Open queues only (archived ones leave every picker); the task's own stays listed.
  const queues = useQuery({ queryKey: queueKeys, queryFn: () => unwrap(listQueuesAction({})) });
  const mutation = useEditMutation(
    (current) => {
      // Who got there first, from the history (a queued task has no owner to name).
      void fetchHistory(current.id).then(
        (history) => {
          setBy(lastChangedBy(history));
          setConflict(conflictSentence(current, lastChangedBy(history)));
        },
        () => setConflict(conflictSentence(current, null)),
      );
    },
    onClose,
  );
  const termsLocked = !mayChangeTerms(base, viewer);
  const set = (field: EditField) => (event: { target: { value: string } }) => {
    setDraft({ ...draft, [field]: event.target.value });
    if (problems[field]) setProblems({ ...problems, [field]: undefined });
    // Writing in a field both changed is a decision about it too.
    setClashes(clashes.filter((c) => c.field !== field));
  };
  const decide = (clash: EditClash, value: "mine" | "theirs") => {
    if (value === "theirs") setDraft({ ...draft, [clash.field]: clash.theirs });
    setClashes(clashes.filter((c) => c !== clash));
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    setConflict(null);
    const read = readEdit(draft, base);
    setProblems("problems" in read ? read.problems : {});
    if ("problems" in read) return focusFirstInvalid(event.currentTarget as HTMLFormElement);
    if (Object.keys(read.changes).length === 0) return onClose();
    const sent = draft;
    mutation.mutate({ base, changes: read.changes }, {
      onError: (error) => {
        const current = error instanceof ActionFailure ? error.error.task : undefined;
        if (error instanceof ActionFailure && error.error.code === "version_conflict" && current) {
          // Fields the person did not touch take the server's values; both-changed ones ask.
          const merged = mergeDraft(sent, base, current);
          setDraft(merged.draft);
          setClashes(merged.clashes);
          setBase(current);
          return;
        }
        // A refusal naming a field of the form is said on that field.
        const named = error instanceof ActionFailure ? error.error.field : undefined;
        if (named && named in draftOf(base)) return setProblems({ [named]: errorSentence(error, "edit", viewer) });
        setProblem(errorSentence(error, "edit", viewer));
      },
    });
  };

  return (
    <section aria-labelledby="edit-heading" className="rounded-lg border border-blue-200 bg-white p-3" data-testid="edit-task">
      <h2 id="edit-heading" className="mb-2 text-sm font-semibold">Edit task</h2>
      <form onSubmit={save} noValidate className="space-y-3">
        <TextField label="Title" value={draft.title} onChange={set("title")} limit={LIMITS.title} error={problems.title} required autoFocus />
        <TextArea label="Description" value={draft.description} onChange={set("description")} limit={LIMITS.description} error={problems.description} rows={4} />
        <SelectField
          label="Queue"
          hint={termsLocked
            ? `Only a supervisor can move a task that has been worked on (attempt ${base.attempt}): the queue's rules, review among them, applied to that work.`
            : "Moving it sends it to the back of that queue's claim order by its priority."}
          value={draft.queue}
          onChange={set("queue")}
          error={problems.queue}
          disabled={termsLocked}
        >
          {[...new Set([base.queue, ...(queues.data ?? [])])].map((q) => (
            <option key={q} value={q}>{q}</option>
          ))}
        </SelectField>
        <TextField
          label="Priority"
          hint={`Higher is claimed first: ${LIMITS.priority.min} (last) to ${LIMITS.priority.max} (first); 0 is the default.`}
          value={draft.priority}
          onChange={set("priority")}
          error={problems.priority}
          inputMode="numeric"
        />
        <div className="[&_textarea]:font-mono [&_textarea]:text-xs">
          <TextArea label="Payload (JSON object)" value={draft.payload} onChange={set("payload")} error={problems.payload} rows={6} spellCheck={false} />
        </div>
        {Object.values(problems).some(Boolean) ? (
          <p role="alert" data-testid="edit-problems" className="text-sm text-red-800">
            {Object.values(problems).filter(Boolean).length === 1 ? "One field needs fixing: see the field marked above." : `${Object.values(problems).filter(Boolean).length} fields need fixing: see the fields marked above.`}
          </p>
        ) : null}
        {problem ? <p role="alert" data-testid="edit-problem" className="text-sm text-red-800">{problem}</p> : null}
        {conflict ? (
          <p role="alert" data-testid="edit-conflict" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
            {conflict}
          </p>
        ) : null}
        {clashes.map((clash) => (
          <div key={clash.field} data-testid={`edit-clash-${clash.field}`} className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
            <p>
              You and {by ?? "someone else"} both changed the {fieldWords[clash.field]}
              {clash.field === "priority" || clash.field === "title" || clash.field === "queue" ? <>: theirs is “{clash.theirs.trim()}”, yours “{draft[clash.field].trim()}”</> : null}.
              Saving keeps yours.
            </p>
            <div className="mt-1 flex flex-wrap gap-2">
              <Button size="sm" onClick={() => decide(clash, "mine")}>Keep mine</Button>
              <Button size="sm" onClick={() => decide(clash, "theirs")}>Use theirs</Button>
            </div>
          </div>
        ))}
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" tone="primary" disabled={mutation.isPending}>
            {mutation.isPending ? "Saving…" : "Save changes"}
          </Button>
        </div>
      </form>
    </section>
  );
}
