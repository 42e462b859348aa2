"use client";

import { useState, type FormEvent } from "react";
import type { HandoffNote } from "@/lib/client";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { focusFirstInvalid, TextArea } from "@/components/ui/field";
import { LIMITS, limitText } from "@/lib/limits";

/** The API's limits, checked here to say it in words first. */
const SUMMARY_MAX = LIMITS.handoffSummary;
const LINKS_MAX = LIMITS.artifacts;
const LINK_MAX = LIMITS.artifact;

type HandoffField = "reason" | "summary" | "next" | "links";
export type HandoffProblems = Partial<Record<HandoffField, string>>;

/**
 * The note from the form (null: none given), or a sentence for every field to fix, all at
 * once, each said on its field.
 */
export function readHandoff(summary: string, next: string, links: string): { note: HandoffNote | null } | { problems: HandoffProblems } {
  const artifacts = links.split("\n").map((l) => l.trim()).filter(Boolean);
  const problems: HandoffProblems = {};
  if (!summary.trim() && (next.trim() || artifacts.length > 0)) problems.summary = "Write what you did in the hand-off summary, or leave the whole hand-off empty.";
  if (summary.trim().length > SUMMARY_MAX) problems.summary = `The hand-off summary is ${limitText(summary.trim().length)} characters; at most ${limitText(SUMMARY_MAX)} fit.`;
  if (next.trim().length > SUMMARY_MAX) problems.next = `The next step is ${limitText(next.trim().length)} characters; at most ${limitText(SUMMARY_MAX)} fit.`;
  const long = artifacts.findIndex((a) => a.length > LINK_MAX);
  if (artifacts.length > LINKS_MAX) problems.links = `A hand-off carries at most ${LINKS_MAX} links; this one has ${artifacts.length}.`;
  else if (long >= 0) problems.links = `Link ${long + 1} is longer than ${LINK_MAX} characters.`;
  if (Object.keys(problems).length > 0) return { problems };
  if (!summary.trim()) return { note: null };
  return { note: { summary: summary.trim(), ...(next.trim() ? { next: next.trim() } : {}), ...(artifacts.length ? { artifacts } : {}) } };
}

/**
 * Release or fail, with a hand-off note for whoever takes the task next (optional):
 * what was done, the next step, links to what was made. Fail also asks for its reason.
 */
export function HandoffDialog({
  title, intro, warning, reason, submit, tone, onClose, onSubmit,
}: {
  title: string;
  intro: string;
  /** A sentence that must not be missed (the last strike). */
  warning?: string | null;
  /** Ask for a reason (fail). */
  reason?: boolean;
  submit: string;
  tone: "primary" | "danger";
  onClose: () => void;
  onSubmit: (values: { reason: string; handoff: HandoffNote | null }) => void;
}) {
  const [why, setWhy] = useState("");
  const [summary, setSummary] = useState("");
  const [next, setNext] = useState("");
  const [links, setLinks] = useState("");
  const [problems, setProblems] = useState<HandoffProblems>({});
  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const read = readHandoff(summary, next, links);
    const found: HandoffProblems = { ...("problems" in read ? read.problems : {}) };
    if (reason && !why.trim()) found.reason = "Say why it failed: the reason is required.";
    else if (reason && why.trim().length > LIMITS.reason) found.reason = `The reason is ${limitText(why.trim().length)} characters; at most ${limitText(LIMITS.reason)} fit.`;
    setProblems(found);
    if (Object.keys(found).length > 0) return focusFirstInvalid(event.currentTarget);
    if ("note" in read) onSubmit({ reason: why.trim(), handoff: read.note });
  };
  const count = Object.keys(problems).length;
  return (
    <Dialog open onClose={onClose} title={title}>
      <form onSubmit={send} noValidate className="space-y-3">
        <p className="text-sm text-slate-700">{intro}</p>
        {warning ? (
          <p role="alert" data-testid="last-strike" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm font-medium text-red-900">
            {warning}
          </p>
        ) : null}
        {reason ? <TextArea label="Reason" value={why} onChange={(e) => setWhy(e.target.value)} required limit={LIMITS.reason} error={problems.reason} autoFocus /> : null}
        <fieldset className="space-y-3 rounded-md border border-slate-200 p-2">
          <legend className="px-1 text-sm font-medium text-slate-700">Hand-off for the next person (optional)</legend>
          <TextArea label="What you did" value={summary} onChange={(e) => setSummary(e.target.value)} rows={2} autoFocus={!reason} limit={SUMMARY_MAX} error={problems.summary} />
          <TextArea label="Next step" value={next} onChange={(e) => setNext(e.target.value)} rows={2} limit={LIMITS.handoffNext} error={problems.next} />
          <TextArea label="Links (one per line)" value={links} onChange={(e) => setLinks(e.target.value)} rows={2} error={problems.links} />
        </fieldset>
        {count > 0 ? (
          <p role="alert" className="text-sm text-red-800">
            {count === 1 ? "One field needs fixing: see the field marked above." : `${count} fields need fixing: see the fields marked above.`}
          </p>
        ) : null}
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" tone={tone} disabled={reason ? !why.trim() : false}>
            {submit}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
