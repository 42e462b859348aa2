"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { bulkReviewAction, type BulkReviewOutcome } from "@/app/actions/supervise";
import { inReviewAction } from "@/app/inbox/actions";
import { ActorName } from "@/components/task/badges";
import { ResultView } from "@/components/task/result-view";
import { unwrap } from "@/components/task/mutations";
import { toWire, type Wire } from "@/components/task/wire";
import { Button, focusRing } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { LIMITS } from "@/lib/limits";
import type { InReview } from "@/lib/tasks";
import { plural } from "./inbox-view";
import { supervisorKeys } from "./keys";
import { useSupervisorCall } from "./use-supervisor";

export type InReviewView = Wire<InReview>;

/**
 * The inbox's "Waiting for review": in_review tasks with bulk Approve / Reject for the
 * selection (docs/board.md). Who may review each task is the engine's rule, not this list's:
 * a task the supervisor submitted or held is refused (self_review) in its own line below the
 * buttons, with the engine's sentence, while the rest of the selection is decided.
 */
export function InReviewTasks({ initial }: { initial: InReviewView }) {
  const client = useQueryClient();
  const { notify } = useToast();
  const key = supervisorKeys.inReview(initial.queue);
  const { data } = useQuery({
    queryKey: key,
    queryFn: async () => toWire(await unwrap(inReviewAction({ queue: initial.queue }))),
    initialData: initial,
  });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [note, setNote] = useState("");
  const [outcome, setOutcome] = useState<BulkReviewOutcome | null>(null);
  const chosen = data.tasks.filter((t) => selected.has(t.id));
  const titles = new Map(data.tasks.map((t) => [t.id, t.title]));

  const bulk = useSupervisorCall(bulkReviewAction, {
    verb: "review",
    onSuccess: (result) => {
      setOutcome(result);
      client.setQueryData<InReviewView>(key, (old) => (old ? { ...old, tasks: old.tasks.filter((t) => !result.done.includes(t.id)) } : old));
      setSelected(new Set());
      if (result.done.length > 0) setNote("");
      const head = `${result.decision === "approve" ? "Approved" : "Rejected"} ${plural(result.done.length)}.`;
      notify(result.refused.length === 0 ? "info" : "error", result.refused.length === 0 ? head : `${head} ${plural(result.refused.length)} refused: see the list.`);
    },
  });

  const decide = (decision: "approve" | "reject") => {
    setOutcome(null);
    bulk.mutate({
      decision, ...(note.trim() ? { note: note.trim() } : {}),
      tasks: chosen.map((t) => ({ taskId: t.id, version: t.version, digest: t.submission!.digest })),
    });
  };
  const toggle = (id: string, on: boolean) =>
    setSelected((old) => {
      const next = new Set(old);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <section aria-labelledby="in-review-heading" className="space-y-2" data-testid="in-review">
      <h2 id="in-review-heading" className="text-lg font-semibold">
        Waiting for review <span className="text-slate-700">({data.tasks.length}{data.truncated ? "+" : ""})</span>
      </h2>
      {data.tasks.length === 0 ? (
        <p className="text-sm text-slate-700">No submission waits for review{data.queue ? ` in ${data.queue}` : ""}.</p>
      ) : (
        <>
          <div role="group" aria-label="Review the selected" className="flex flex-wrap items-end gap-2 rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
            <label className="mr-2 inline-flex items-center gap-2 text-sm font-medium">
              <input
                type="checkbox"
                className={`size-4 accent-blue-700 ${focusRing}`}
                checked={chosen.length === data.tasks.length}
                onChange={(e) => setSelected(e.target.checked ? new Set(data.tasks.map((t) => t.id)) : new Set())}
              />
              Select all {data.tasks.length}
            </label>
            <div className="min-w-48 flex-1">
              <TextField label="Note" hint="A reject's note is the next claimant's hand-off" value={note} limit={LIMITS.reviewNote} onChange={(e) => setNote(e.target.value)} />
            </div>
            <Button size="sm" disabled={chosen.length === 0 || bulk.isPending} onClick={() => decide("approve")}>
              Approve {chosen.length} selected
            </Button>
            <Button size="sm" tone="danger" disabled={chosen.length === 0 || bulk.isPending} onClick={() => decide("reject")}>
              Reject {chosen.length} selected
            </Button>
            {bulk.isPending ? <span role="status" className="text-sm text-slate-700">Working…</span> : null}
          </div>
          <ul aria-label="Tasks waiting for review" className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
            {data.tasks.map((task) => (
              <li key={task.id} data-testid={`in-review-${task.id}`} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2 text-sm">
                <input
                  type="checkbox"
                  aria-label={`Select #${task.id} ${task.title}`}
                  className={`size-4 self-center accent-blue-700 ${focusRing}`}
                  checked={selected.has(task.id)}
                  onChange={(e) => toggle(task.id, e.target.checked)}
                />
                <Link href={`/tasks/${task.id}`} className={`min-w-0 rounded font-medium wrap-anywhere text-blue-800 underline underline-offset-2 ${focusRing}`}>
                  #{task.id} {task.title}
                </Link>
                <span className="text-xs text-slate-700">
                  {task.queue} · submitted by {task.submission ? <ActorName actor={task.submission.by} /> : "?"} (attempt {task.submission?.attempt ?? "?"})
                </span>
                {/* Each submission is shown where it is approved: a bulk approval is of what was read. */}
                {task.submission ? (
                  <div className="basis-full rounded border border-slate-100 bg-slate-50 p-2" aria-label={`Submission of #${task.id}`} role="group">
                    <ResultView result={task.submission.result} compact testId={`in-review-result-${task.id}`} />
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      )}
      {outcome && outcome.refused.length > 0 ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
          <p>{plural(outcome.refused.length)} not {outcome.decision === "approve" ? "approved" : "rejected"}:</p>
          <ul data-testid="review-refusals" className="mt-1 list-disc pl-5">
            {outcome.refused.map((r) => (
              <li key={r.taskId} data-testid={`review-refused-${r.taskId}`}>
                #{r.taskId}{titles.get(r.taskId) ? ` ${titles.get(r.taskId)}` : ""}: {r.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
