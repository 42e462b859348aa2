"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { reviewAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { Button } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { TextArea } from "@/components/ui/field";
import { LIMITS, limitText } from "@/lib/limits";
import { useToast } from "@/components/ui/toaster";
import { taskKeys } from "./api";
import { putTask } from "./cache";
import { describeError, type ErrorView } from "./describe-error";
import { ActorName } from "./badges";
import { ResultView } from "./result-view";
import { toWire, type EventView, type TaskView, type Viewer } from "./wire";

// Review before done (docs/board.md): an in_review task's submission — the result, its digest,
// who submitted it — and Approve / Reject with a note for whoever may review it. The engine
// decides who may (lib/tasks/review/review.ts: not the submitter, not anyone who held an
// attempt); the page reads the same facts from the history it shows, only to spare buttons
// the engine would refuse.

/** Whether to offer the viewer the review: not its submitter, and no claim of theirs in the history. */
export function mayReview(task: TaskView, viewer: Viewer, history: EventView[]): boolean {
  if (task.status !== "in_review" || !task.submission) return false;
  if (viewer.role !== "staff" && viewer.role !== "supervisor") return false;
  if (task.submission.by.id === viewer.actorId) return false;
  return !history.some((e) => e.type === "claimed" && e.actor.id === viewer.actorId);
}

export function ReviewPanel({ task, history }: { task: TaskView; history: EventView[] }) {
  const viewer = useViewer();
  const client = useQueryClient();
  const { notify } = useToast();
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submission = task.submission;
  if (task.status !== "in_review" || !submission) return null;
  const may = mayReview(task, viewer, history);
  const decide = async (decision: "approve" | "reject") => {
    if (note.trim().length > LIMITS.reviewNote) return setError(`The note is ${limitText(note.trim().length)} characters; at most ${limitText(LIMITS.reviewNote)} fit.`);
    setBusy(true);
    setError(null);
    const result = await reviewAction({
      taskId: task.id, version: task.version, decision, digest: submission.digest, ...(note.trim() ? { note: note.trim() } : {}),
    });
    setBusy(false);
    if (!result.ok) {
      // The task as the server has it now, written in at once: the live stream may be behind.
      const failure = toWire(result.error) as ErrorView;
      const sentence = describeError(failure, decision, viewer.actorId);
      if (failure.task) putTask(client, failure.task, viewer);
      void client.invalidateQueries({ queryKey: taskKeys.detail(task.id) });
      void client.invalidateQueries({ queryKey: taskKeys.events(task.id) });
      // Decided by someone else first: this panel goes with the review, so the toast says why.
      if (failure.task && failure.task.status !== "in_review") notify("error", sentence);
      return setError(sentence);
    }
    setNote("");
    void client.invalidateQueries({ queryKey: taskKeys.detail(task.id) });
    void client.invalidateQueries({ queryKey: taskKeys.events(task.id) });
  };
  return (
    <section aria-labelledby="review-heading" className="rounded-lg border border-amber-200 bg-amber-50 p-3" data-testid="review-panel">
      <h2 id="review-heading" className="text-sm font-semibold">
        Waiting for review
      </h2>
      <p className="mt-1 text-sm text-slate-700">
        Submitted by <ActorName actor={submission.by} /> (attempt {submission.attempt}) <LocalTime iso={submission.at} withDate />.
      </p>
      <div className="mt-2 rounded bg-white p-2" aria-label="Submitted result" role="group">
        <ResultView result={submission.result} />
      </div>
      {/* The digest is what an approval binds to (the API's reviewers send it); a person asks for it. */}
      <details className="mt-2 text-xs text-slate-700">
        <summary className="cursor-pointer">Digest</summary>
        <p className="mt-1 font-mono break-all" data-testid="submission-digest">{submission.digest}</p>
      </details>
      {may ? (
        <div className="mt-3 flex flex-col gap-2">
          <TextArea label="Note (a reject's note is the next claimant's hand-off)" value={note} limit={LIMITS.reviewNote} rows={3} onChange={(e) => setNote(e.target.value)} />
          <div className="flex flex-wrap gap-2">
            <Button size="sm" disabled={busy} onClick={() => void decide("approve")}>Approve</Button>
            <Button size="sm" disabled={busy} onClick={() => void decide("reject")}>Reject</Button>
          </div>
        </div>
      ) : (
        <p className="mt-2 text-sm text-slate-600">
          {submission.by.id === viewer.actorId || history.some((e) => e.type === "claimed" && e.actor.id === viewer.actorId)
            ? "You worked on this task: someone else must review it."
            : "Only a person who did not work on it may review it."}
        </p>
      )}
      {error ? <p role="alert" className="mt-2 text-sm text-red-700">{error}</p> : null}
    </section>
  );
}
