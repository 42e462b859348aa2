"use client";

import { SelectField, TextField } from "@/components/ui/field";
import type { QueueSettingsView } from "./types";

// Who may claim a queue's tasks and how long one attempt may last (issue 12), as inputs of
// the queue's settings form. Kept apart from the numeric settings: these two have their
// own shapes (a choice; a number or nothing).

export const CLAIMANT_CHOICES = [
  { value: "anyone", label: "Anyone (people and agents)" },
  { value: "people", label: "People only" },
  { value: "agents", label: "Agents only" },
] as const;

/** Who may comment (issue 25): comments reach the agents working the queue as data. */
export const COMMENTER_CHOICES = [
  { value: "anyone", label: "Anyone who works here" },
  { value: "people", label: "People (and supervisor tokens)" },
  { value: "supervisors", label: "Supervisors only" },
] as const;

/** Which completions wait for a reviewer (review before done, docs/board.md). */
export const REVIEW_CHOICES = [
  { value: "none", label: "None: a completion is done" },
  { value: "agents", label: "Agents' completions" },
  { value: "everyone", label: "Every completion" },
] as const;

/** The form's values for the two settings: a blank ceiling lifts it (null). */
export function claimRuleValues(form: FormData) {
  const ceiling = String(form.get("maxAttemptSeconds") ?? "").trim();
  return {
    claimants: String(form.get("claimants") ?? "anyone") as QueueSettingsView["claimants"],
    commenters: String(form.get("commenters") ?? "anyone") as QueueSettingsView["commenters"],
    review: String(form.get("review") ?? "none") as QueueSettingsView["review"],
    maxAttemptSeconds: ceiling === "" ? null : Number(ceiling),
  };
}

/** A readable sentence for a refused value of one of these settings, or null for another field. */
export function claimRuleError(field: string | undefined): string | null {
  if (field === "maxAttemptSeconds") return "Attempt ceiling must be a whole number from 60 to 604,800 seconds, or blank for none.";
  if (field === "claimants") return "Who may claim must be anyone, people only or agents only.";
  if (field === "commenters") return "Who may comment must be anyone, people or supervisors.";
  if (field === "review") return "Review must be none, agents' completions or every completion.";
  return null;
}

export function ClaimRuleFields({ queue, problems, onChange }: {
  queue: QueueSettingsView;
  /** The form's sentences by field: each is said on its own field. */
  problems: Record<string, string>;
  onChange: () => void;
}) {
  const describe = (field: string) => ({ error: problems[field] });
  return (
    <>
      <SelectField name="claimants" label="Who may claim" defaultValue={queue.claimants} onChange={onChange}
        hint="Agents never take a people queue's task, lapsed or not." {...describe("claimants")}>
        {CLAIMANT_CHOICES.map((c) => (
          <option key={c.value} value={c.value}>{c.label}</option>
        ))}
      </SelectField>
      <SelectField name="commenters" label="Who may comment" defaultValue={queue.commenters} onChange={onChange}
        hint="Agents read comments as data; keep other agents' words out of a queue with “people”." {...describe("commenters")}>
        {COMMENTER_CHOICES.map((c) => (
          <option key={c.value} value={c.value}>{c.label}</option>
        ))}
      </SelectField>
      <SelectField name="review" label="Review before done" defaultValue={queue.review} onChange={onChange}
        hint="A completion that needs review waits in “In review” until someone who did not work on it approves or rejects it." {...describe("review")}>
        {REVIEW_CHOICES.map((c) => (
          <option key={c.value} value={c.value}>{c.label}</option>
        ))}
      </SelectField>
      <TextField name="maxAttemptSeconds" label="Attempt ceiling (seconds)" type="number" inputMode="numeric" step={1}
        defaultValue={queue.maxAttemptSeconds ?? ""} onChange={onChange}
        hint="60 to 604,800, blank for none: heartbeats cannot carry an attempt past it, and its lapse is a strike."
        {...describe("maxAttemptSeconds")} />
    </>
  );
}
