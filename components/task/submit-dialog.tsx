"use client";

import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { focusFirstInvalid, TextArea } from "@/components/ui/field";
import { LIMITS, limitText } from "@/lib/limits";
import { httpHref } from "@/lib/results/read-result";

/** What a person submits for review: a summary and the links to what they made. */
export type SubmittedWork = { summary: string; links?: string[] };

type Problems = Partial<Record<"summary" | "links", string>>;

/** The result from the form, or a sentence for each field to fix (the engine refuses an empty result). */
export function readSubmission(summary: string, links: string): { result: SubmittedWork } | { problems: Problems } {
  const list = links.split("\n").map((l) => l.trim()).filter(Boolean);
  const problems: Problems = {};
  if (!summary.trim()) problems.summary = "Say what you did: the reviewer reads this summary before approving.";
  else if (summary.trim().length > LIMITS.handoffSummary) problems.summary = `The summary is ${limitText(summary.trim().length)} characters; at most ${limitText(LIMITS.handoffSummary)} fit.`;
  const bad = list.findIndex((l) => !httpHref(l) || l.length > LIMITS.artifact);
  if (list.length > LIMITS.artifacts) problems.links = `At most ${LIMITS.artifacts} links; this has ${list.length}.`;
  else if (bad >= 0) problems.links = `Link ${bad + 1} is not an http(s) address of at most ${LIMITS.artifact} characters.`;
  if (Object.keys(problems).length > 0) return { problems };
  return { result: { summary: summary.trim(), ...(list.length ? { links: list } : {}) } };
}

/**
 * Completing in a queue that reviews people's work: the task goes to a reviewer, who sees the
 * summary (as Markdown) and the links, and approves what they read.
 */
export function SubmitDialog({ title, onClose, onSubmit }: { title: string; onClose: () => void; onSubmit: (result: SubmittedWork) => void }) {
  const [summary, setSummary] = useState("");
  const [links, setLinks] = useState("");
  const [problems, setProblems] = useState<Problems>({});
  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const read = readSubmission(summary, links);
    setProblems("problems" in read ? read.problems : {});
    if ("problems" in read) return focusFirstInvalid(event.currentTarget);
    onSubmit(read.result);
  };
  return (
    <Dialog open onClose={onClose} title={`Submit “${title}” for review`}>
      <form onSubmit={send} noValidate className="space-y-3">
        <p className="text-sm text-slate-700">A reviewer reads this before the task is done; a reject sends it back with their note.</p>
        <TextArea label="Summary" hint="What you did and how to check it (Markdown: **bold**, lists, links)" value={summary} onChange={(e) => setSummary(e.target.value)} rows={4} required autoFocus limit={LIMITS.handoffSummary} error={problems.summary} />
        <TextArea label="Links (one per line)" hint="http(s) addresses of what you made" value={links} onChange={(e) => setLinks(e.target.value)} rows={2} error={problems.links} />
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" tone="primary">Submit for review</Button>
        </div>
      </form>
    </Dialog>
  );
}
