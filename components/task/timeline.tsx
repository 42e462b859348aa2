"use client";

import { useQuery } from "@tanstack/react-query";
import { fetchHistory, HISTORY_LIMIT, taskKeys } from "./api";
import { claimText, groupByAttempt, type Attempt, type TimelineEntry } from "./attempts";
import { ActorName } from "./badges";
import { LocalTime } from "@/components/ui/local-time";
import type { ReactNode } from "react";
import type { EventView } from "./wire";
import { editedSummary, RowNote } from "./timeline-notes";
import { ArchivedNote } from "./archived-note";
import { EVENTS, isEventType } from "@/lib/tasks/model";

const progressText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const text = (value: unknown) => (typeof value === "string" ? value : "");

/** The note a release, fail or lapse left ({summary, next}), whoever wrote it. */
function noteOf(event: EventView): { summary: string; next: string | null } | null {
  const note: unknown = event.payload && "handoff" in event.payload ? event.payload.handoff : undefined;
  if (!note || typeof note !== "object" || !("summary" in note) || typeof note.summary !== "string" || !note.summary) return null;
  return { summary: note.summary, next: "next" in note && typeof note.next === "string" ? note.next : null };
}

/** The hand-off a release, fail or lapse left, under its line. */
function HandoffLine({ event }: { event: EventView }) {
  const note = noteOf(event);
  if (!note) return null;
  return (
    <p data-testid="event-handoff" className="mt-0.5 text-sm text-blue-900">
      ↪ hand-off: {note.summary}
      {note.next ? <> — next: {note.next}</> : null}
    </p>
  );
}

/**
 * What happened, in words: the machine's sentence for the event type (lib/tasks/core/machine-events.ts),
 * or one its payload says more in. The payload itself is one click away.
 */
function what(entry: TimelineEntry): ReactNode {
  const last = entry.events.at(-1)!;
  switch (last.type) {
    case "claimed":
      return claimText(entry);
    case "attempt_limit_reached":
      return `reached the queue's attempt ceiling (${String(last.payload.maxAttemptSeconds ?? "?")} s): the lease was not extended`;
    case "claim_rejected":
      return `tried to claim it — too late (it was ${text(last.payload.status) || "taken"})`;
    case "heartbeat": {
      const until = text(last.payload.leaseUntil) ? <> (until <LocalTime iso={text(last.payload.leaseUntil)} />)</> : null;
      const how = last.payload.presence ? " while on the page" : "";
      const progress = entry.events.findLast((e) => e.type === "heartbeat" && e.payload.progress !== undefined);
      const said = progress?.type === "heartbeat" ? <>; progress: {progressText(progress.payload.progress)}</> : null;
      return entry.events.length > 1 ? <>renewed the lease{how} ×{entry.events.length}{until}{said}</> : <>renewed the lease{how}{until}{said}</>;
    }
    case "side_effect":
      return `recorded a side effect: ${text(last.payload.description)}`;
    case "checkpointed":
      return <>recorded a checkpoint: <span data-testid="checkpoint-step">step {last.payload.step}</span></>;
    case "released":
      return last.payload.force ? "force-released it back to the queue" : EVENTS.released.label;
    case "lease_expired":
      return last.payload.strike ? "noted the lease had lapsed at the attempt ceiling: a strike" : EVENTS.lease_expired.label;
    case "lapsed":
      return `${EVENTS.lapsed.label} (attempt ${last.payload.attempt}, held by ${last.payload.owner?.name ?? "?"})`;
    case "failed":
      return `reported a failure: ${text(last.payload.reason)}`;
    case "edited":
      return editedSummary(last.payload);
    default:
      return isEventType(last.type) ? EVENTS[last.type].label : String(last.type).replaceAll("_", " ");
  }
}

/** The agent process that wrote the event (Claimboard-Instance), when it said. */
const instanceOf = (entry: TimelineEntry) => {
  const last = entry.events.at(-1)!;
  const value = last.payload && "instance" in last.payload ? last.payload.instance : undefined;
  return typeof value === "string" ? `on ${value}` : null;
};

function Entry({ entry }: { entry: TimelineEntry }) {
  const payloads = entry.events.map((e: EventView) => e.payload);
  return (
    <li className="relative border-l-2 border-slate-200 pb-3 pl-4" data-testid="event" data-type={entry.type}>
      <span aria-hidden className="absolute top-1.5 -left-[5px] h-2 w-2 rounded-full bg-slate-400" />
      <p className="text-sm">
        <LocalTime iso={entry.at} withDate className="mr-2 text-xs text-slate-500 tabular-nums" />
        <ActorName actor={entry.actor} /> {what(entry)}
        {instanceOf(entry) ? <span className="ml-1 text-xs text-slate-500" data-testid="instance">· {instanceOf(entry)}</span> : null}
      </p>
      <HandoffLine event={entry.events.at(-1)!} />
      <RowNote event={entry.events.at(-1)!} />
      {/* "▸ Payload" only where there is one (issue 27 item 9). */}
      {payloads.some((p) => p && typeof p === "object" && Object.keys(p).length > 0) ? (
        <details className="mt-1 text-xs">
          <summary className="cursor-pointer text-slate-500">Payload</summary>
          <pre className="mt-1 overflow-x-auto rounded bg-slate-900 p-2 text-slate-100">
            {JSON.stringify(payloads.length === 1 ? payloads[0] : payloads, null, 2)}
          </pre>
        </details>
      ) : null}
    </li>
  );
}

/** "step 3", "steps 1–3", or "steps 4, 2" where an attempt went back: the checkpoints it recorded. */
function stepsText(steps: number[]): string {
  if (steps.length === 1) return `step ${steps[0]}`;
  const run = steps.every((s, i) => i === 0 || s === steps[i - 1]! + 1);
  return run ? `steps ${steps[0]}–${steps.at(-1)}` : `steps ${steps.join(", ")}`;
}

function AttemptGroup({ attempt }: { attempt: Attempt }) {
  const title = attempt.number === 0 ? "Before the first claim" : `Attempt ${attempt.number}`;
  const headingId = `attempt-${attempt.number}`;
  return (
    <section aria-labelledby={headingId} data-testid="attempt" className="rounded-lg border border-slate-200 bg-white p-3">
      <h3 className="mb-2 flex flex-wrap items-baseline gap-x-2 text-sm font-semibold">
        <span id={headingId}>{title}</span>
        {attempt.claimant ? (
          <span className="font-normal text-slate-600">
            by <ActorName actor={attempt.claimant} />
          </span>
        ) : null}
        {attempt.outcome ? <span className="font-normal text-slate-500">· {attempt.outcome}</span> : null}
        {attempt.steps.length > 0 ? (
          <span className="font-normal text-slate-500" data-testid="attempt-steps">
            · {stepsText(attempt.steps)}
          </span>
        ) : null}
      </h3>
      <ol>
        {attempt.entries.map((entry) => (
          <Entry key={entry.key} entry={entry} />
        ))}
      </ol>
    </section>
  );
}

/** The task's whole history, grouped by attempt, refreshed by the event stream. */
export function Timeline({ taskId, initial }: { taskId: string; initial: EventView[] }) {
  const query = useQuery({ queryKey: taskKeys.events(taskId), queryFn: () => fetchHistory(taskId), initialData: initial });
  // Archive facts are written after the events they replace: the page shows them first.
  const archived = query.data.filter((e) => e.type === "events_archived");
  const attempts = groupByAttempt(query.data.filter((e) => e.type !== "events_archived"));
  return (
    <div className="space-y-3">
      {archived.map((fact) => (
        <ArchivedNote key={fact.id} fact={fact} />
      ))}
      {attempts.map((attempt) => (
        <AttemptGroup key={attempt.number} attempt={attempt} />
      ))}
      {query.data.length >= HISTORY_LIMIT ? (
        <p className="text-sm text-slate-500">Showing the first {HISTORY_LIMIT} events.</p>
      ) : null}
    </div>
  );
}
