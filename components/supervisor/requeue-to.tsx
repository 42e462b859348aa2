"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { requeueToAction } from "@/app/actions/supervise";
import { useViewer } from "@/components/realtime/viewer";
import { putTask } from "@/components/task/cache";
import { errorSentence, unwrap } from "@/components/task/mutations";
import { toWire, type TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { SelectField, TextArea } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { LIMITS } from "@/lib/limits";
import { supervisorKeys } from "./keys";

/**
 * "Requeue to…": the task leaves the inbox for another queue (say, from the bots' queue to
 * the people's), requeued there with its failures reset. The queue list is the inbox's own
 * (open queues only); the server refuses an archived one anyway.
 */
export function RequeueToDialog({ task, queues, onClose, onDone }: { task: TaskView; queues: string[]; onClose: () => void; onDone: (task: TaskView) => void }) {
  const others = queues.filter((q) => q !== task.queue);
  const [queue, setQueue] = useState(others[0] ?? "");
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const client = useQueryClient();
  const viewer = useViewer();
  const { notify } = useToast();
  const mutation = useMutation({
    mutationFn: async () =>
      toWire(await unwrap(requeueToAction({ taskId: task.id, version: task.version, queue, ...(reason.trim() ? { reason: reason.trim() } : {}) }))) as TaskView,
    onSuccess: (moved) => {
      putTask(client, moved, viewer);
      notify("info", `Requeued “${moved.title}” to queue ${moved.queue}.`);
      void client.invalidateQueries({ queryKey: supervisorKeys.all });
      onDone(moved);
    },
    onError: (error) => setProblem(errorSentence(error, "requeue", viewer)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!queue) return setProblem("There is no other open queue to move it to.");
    if (reason.length > LIMITS.reason) return setProblem(`The reason is ${reason.length} characters; at most ${LIMITS.reason} fit.`);
    setProblem(null);
    mutation.mutate();
  };
  return (
    <Dialog open onClose={onClose} title={`Requeue “${task.title}” to another queue`}>
      <form onSubmit={submit} noValidate className="space-y-3">
        <p className="text-sm text-slate-700">It leaves {task.queue} and waits in the queue you choose, its failure count reset to 0.</p>
        <SelectField label="Queue" value={queue} onChange={(e) => setQueue(e.target.value)}>
          {others.map((q) => (
            <option key={q} value={q}>{q}</option>
          ))}
        </SelectField>
        <TextArea label="Reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} rows={2} />
        {problem ? <p role="alert" className="text-sm text-red-800">{problem}</p> : null}
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" tone="primary" disabled={mutation.isPending}>{mutation.isPending ? "Requeueing…" : `Requeue to ${queue || "…"}`}</Button>
        </div>
      </form>
    </Dialog>
  );
}
