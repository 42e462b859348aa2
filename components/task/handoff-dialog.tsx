"use client";

import { useState, type FormEvent } from "react";
import type { HandoffNote } from "@/lib/client";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TextArea } from "@/components/ui/field";
import { LIMITS } from "@/lib/limits";

/** The API's limits, checked here to say it in words first. */
const SUMMARY_MAX = LIMITS.handoffSummary;
const LINKS_MAX = LIMITS.artifacts;
const LINK_MAX = LIMITS.artifact;

/** The note from the form, or a sentence saying what to fix; null note = none given. */
export function readHandoff(summary: string, next: string, links: string): { note: HandoffNote | null } | { problem: string } {
  const artifacts = links.split("\n").map((l) => l.trim()).filter(Boolean);
  if (!summary.trim()) {
    return next.trim() || artifacts.length > 0 ? { problem: "Write what you did in the hand-off summary, or leave the whole hand-off empty." } : { note: null };
  }
  if (summary.trim().length > SUMMARY_MAX) return { problem: `The hand-off summary is ${summary.trim().length} characters; at most ${SUMMARY_MAX} fit.` };
  if (next.trim().length > SUMMARY_MAX) return { problem: `The next step is ${next.trim().length} characters; at most ${SUMMARY_MAX} fit.` };
  if (artifacts.length > LINKS_MAX) return { problem: `A hand-off carries at most ${LINKS_MAX} links; this one has ${artifacts.length}.` };
  const long = artifacts.findIndex((a) => a.length > LINK_MAX);
  if (long >= 0) return { problem: `Link ${long + 1} is longer than ${LINK_MAX} characters.` };
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
  const [problem, setProblem] = useState<string | null>(null);
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (reason && !why.trim()) return setProblem("Say why it failed: the reason is required.");
    const read = readHandoff(summary, next, links);
    if ("problem" in read) return setProblem(read.problem);
    onSubmit({ reason: why.trim(), handoff: read.note });
  };
  return (
    <Dialog open onClose={onClose} title={title}>
      <form onSubmit={send} noValidate className="space-y-3">
        <p className="text-sm text-slate-700">{intro}</p>
        {warning ? (
          <p role="alert" data-testid="last-strike" className="rounded-md border border-red-300 bg-red-50 p-2 text-sm font-medium text-red-900">
            {warning}
          </p>
        ) : null}
        {reason ? <TextArea label="Reason" value={why} onChange={(e) => setWhy(e.target.value)} required maxLength={LIMITS.reason} autoFocus /> : null}
        <fieldset className="space-y-3 rounded-md border border-slate-200 p-2">
          <legend className="px-1 text-sm font-medium text-slate-700">Hand-off for the next person (optional)</legend>
          <TextArea label="What you did" value={summary} onChange={(e) => setSummary(e.target.value)} rows={2} autoFocus={!reason} />
          <TextArea label="Next step" value={next} onChange={(e) => setNext(e.target.value)} rows={2} />
          <TextArea label="Links (one per line)" value={links} onChange={(e) => setLinks(e.target.value)} rows={2} />
        </fieldset>
        {problem ? <p role="alert" className="text-sm text-red-800">{problem}</p> : null}
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
