"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { addCommentAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { Button } from "@/components/ui/button";
import { TextArea } from "@/components/ui/field";
import { taskKeys } from "./api";
import { errorSentence, unwrap } from "./mutations";
import { toWire, type EventView, type TaskView } from "./wire";
import { LIMITS } from "@/lib/limits";

/** The API's limit, said in words before the server does. */
const COMMENT_MAX = LIMITS.comment;

export function commentProblem(body: string): string | null {
  if (!body.trim()) return "Write something first: the comment is empty.";
  if (body.length > COMMENT_MAX) {
    return `That's ${body.length.toLocaleString("en")} characters; a comment holds at most ${COMMENT_MAX.toLocaleString("en")}. Shorten it, or split it in two.`;
  }
  return null;
}

let placeholders = 0;

/**
 * A comment box: the comment shows in the history at once (a placeholder row), and the
 * event stream brings it to everyone else watching the task. On refusal the row goes and
 * the text comes back into the box.
 */
export function CommentBox({ task }: { task: TaskView }) {
  const client = useQueryClient();
  const viewer = useViewer();
  const [body, setBody] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const key = taskKeys.events(task.id);
  const mutation = useMutation({
    mutationFn: async (text: string) => toWire(await unwrap(addCommentAction({ taskId: task.id, body: text }))) as EventView,
    onMutate: async (text) => {
      await client.cancelQueries({ queryKey: key });
      const placeholder: EventView = {
        id: `pending-${++placeholders}`, taskId: task.id, queue: task.queue, type: "commented",
        actor: { id: viewer.actorId, name: viewer.name, kind: "user" }, payload: { body: text, pending: true },
        createdAt: new Date().toISOString(),
      };
      client.setQueryData<EventView[]>(key, (events) => [...(events ?? []), placeholder]);
      setBody("");
      return { placeholder };
    },
    onError: (error, text, context) => {
      client.setQueryData<EventView[]>(key, (events) => (events ?? []).filter((e) => e.id !== context?.placeholder.id));
      setBody(text);
      setProblem(errorSentence(error, "comment on", viewer));
    },
    onSuccess: (event, _text, context) => {
      client.setQueryData<EventView[]>(key, (events) => (events ?? []).map((e) => (e.id === context?.placeholder.id ? event : e)));
      void client.invalidateQueries({ queryKey: key });
    },
  });
  const send = (event: FormEvent) => {
    event.preventDefault();
    const why = commentProblem(body);
    setProblem(why);
    if (!why) mutation.mutate(body);
  };
  return (
    <form onSubmit={send} noValidate aria-label="Add a comment" className="space-y-2 rounded-lg border border-slate-200 bg-white p-3">
      <TextArea
        label="Comment"
        hint="Everyone watching this task sees it at once."
        value={body}
        onChange={(e) => {
          setBody(e.target.value);
          if (problem && !commentProblem(e.target.value)) setProblem(null);
        }}
        rows={2}
        limit={COMMENT_MAX}
        error={problem}
      />
      <div className="flex justify-end">
        <Button type="submit" size="sm" tone="primary">
          Post comment
        </Button>
      </div>
    </form>
  );
}
