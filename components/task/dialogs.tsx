"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TextArea } from "@/components/ui/field";
import { fetchHistory, taskKeys } from "./api";
import { ActorName } from "./badges";
import { LocalTime } from "@/components/ui/local-time";
import { uncheckedSideEffects } from "./side-effects";
import type { TaskView } from "./wire";
import { LIMITS } from "@/lib/limits";

/**
 * Starting a needs_check task: an earlier attempt began something outside (an email, a
 * payment) and its lease lapsed before it finished. List what it recorded, and start only
 * once the person says they checked.
 */
export function CheckDialog({ task, open, onClose, onConfirm }: { task: TaskView; open: boolean; onClose: () => void; onConfirm: () => void }) {
  const history = useQuery({ queryKey: taskKeys.events(task.id), queryFn: () => fetchHistory(task.id), enabled: open });
  const effects = uncheckedSideEffects(history.data ?? []);
  return (
    <Dialog open={open} onClose={onClose} title="Check before starting">
      <p className="text-sm text-slate-700">
        An earlier attempt at <strong>{task.title}</strong> began these side effects and then stopped. Make sure they
        happened once (or not at all) before you start again.
      </p>
      {history.isPending ? (
        <p className="mt-3 text-sm text-slate-500">Loading the recorded side effects…</p>
      ) : history.isError ? (
        <p className="mt-3 text-sm text-red-700">Couldn&apos;t load the task&apos;s history.</p>
      ) : (
        <ul aria-label="Recorded side effects" className="mt-3 space-y-2">
          {effects.length === 0 ? <li className="text-sm text-slate-500">None recorded since the last check.</li> : null}
          {effects.map((effect) => (
            <li key={effect.id} className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm">
              <p className="font-medium">{effect.description}</p>
              <p className="mt-1 text-xs text-slate-600">
                <ActorName actor={effect.actor} /> at <LocalTime iso={effect.at} />
              </p>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-5 flex flex-wrap justify-end gap-2">
        <Button onClick={onClose}>Not now</Button>
        <Button tone="primary" onClick={onConfirm} disabled={history.isPending}>
          I&apos;ve checked — start
        </Button>
      </div>
    </Dialog>
  );
}

/** Asks for one line of text (a failure's reason, a side effect's description), then acts. */
export function TextDialog({
  open,
  onClose,
  onSubmit,
  title,
  label,
  hint,
  submit,
  tone = "primary",
}: {
  open: boolean;
  onClose: () => void;
  onSubmit: (text: string) => void;
  title: string;
  label: string;
  hint?: string;
  submit: string;
  tone?: "primary" | "danger";
}) {
  const [text, setText] = useState("");
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim() || text.trim().length > LIMITS.reason) return;
    onSubmit(text.trim());
    setText("");
  };
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      <form onSubmit={send} noValidate className="space-y-4">
        <TextArea label={label} hint={hint} value={text} onChange={(e) => setText(e.target.value)} required limit={LIMITS.reason} autoFocus />
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" tone={tone} disabled={!text.trim() || text.trim().length > LIMITS.reason}>
            {submit}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
