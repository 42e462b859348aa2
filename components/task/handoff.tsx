"use client";

import { useNow } from "@/components/realtime/clock";
import { LocalTime } from "@/components/ui/local-time";
import { ActorName } from "./badges";
import type { TaskView } from "./wire";

/** "20 s ago", "3 min ago", "2 h ago" against the estimated database clock. */
export function ago(iso: string, now: number | null): string {
  if (now === null) return "";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

const progressText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** The current attempt's last progress: "progress 20 s ago: copied 300 of 1000". */
export function ProgressLine({ task, compact = false }: { task: TaskView; compact?: boolean }) {
  const now = useNow(task.progress !== null);
  if (!task.progress) return null;
  return (
    <p data-testid="progress" className={`text-slate-700 ${compact ? "truncate text-xs" : "text-sm"}`} title={progressText(task.progress.value)}>
      <span className="text-slate-500">progress {ago(task.progress.at, now) || <LocalTime iso={task.progress.at} />}:</span>{" "}
      {progressText(task.progress.value)}
    </p>
  );
}

/** The latest checkpoint, of whichever attempt: where the holder goes on from (docs/checkpoints.md). */
export function CheckpointLine({ task }: { task: TaskView }) {
  const checkpoint = task.checkpoint;
  if (!checkpoint) return null;
  return (
    <p data-testid="checkpoint" className="text-sm text-slate-700">
      <span className="text-slate-500">Latest checkpoint:</span> step {checkpoint.step} of attempt {checkpoint.attempt}, by{" "}
      <ActorName actor={checkpoint.by} /> · <LocalTime iso={checkpoint.at} withDate />
    </p>
  );
}

/** The latest hand-off note, at the top of the task page: who left it, when, what next, links. */
export function HandoffCard({ task }: { task: TaskView }) {
  const note = task.handoff;
  if (!note) return null;
  return (
    <section aria-labelledby="handoff-heading" data-testid="handoff" className="rounded-lg border border-blue-200 bg-blue-50 p-3">
      <h2 id="handoff-heading" className="text-sm font-semibold text-blue-950">
        Hand-off from <ActorName actor={note.by} /> · <LocalTime iso={note.at} withDate />
      </h2>
      <p className="mt-1 text-sm whitespace-pre-wrap text-slate-800">{note.summary}</p>
      {note.next ? (
        <p className="mt-1 text-sm whitespace-pre-wrap text-slate-800">
          <span className="font-medium">Next: </span>
          {note.next}
        </p>
      ) : null}
      {note.artifacts.length > 0 ? (
        <ul aria-label="Links" className="mt-1 list-disc pl-5 text-sm">
          {note.artifacts.map((a, i) => (
            <li key={i} className="break-all">
              {/^https?:\/\//.test(a) ? (
                <a href={a} rel="noreferrer noopener" target="_blank" className="text-blue-800 underline">{a}</a>
              ) : (
                a
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** A one-line hint of the hand-off on a board card. */
export function HandoffHint({ task }: { task: TaskView }) {
  if (!task.handoff) return null;
  return (
    <p data-testid="handoff-hint" className="mt-1 truncate text-xs text-blue-900" title={task.handoff.summary}>
      ↪ hand-off from {task.handoff.by.name}: {task.handoff.summary}
    </p>
  );
}
