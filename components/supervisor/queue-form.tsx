"use client";

import { useState, type FormEvent } from "react";
import { setQueueSettingsAction } from "@/app/actions/supervise";
import { ActionFailure } from "@/components/task/mutations";
import { Button } from "@/components/ui/button";
import { focusFirstInvalid, TextArea, TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { ClaimRuleFields, claimRuleError, claimRuleValues } from "./claim-rule-fields";
import type { QueueSettingsView } from "./types";
import { supervisorErrorSentence, useSupervisorCall } from "./use-supervisor";
import { LIMITS, limitText } from "@/lib/limits";

type SettingField = "leaseSeconds" | "maxFailures" | "expiryThreshold" | "expiryWindowSeconds" | "retryDelaySeconds" | "lockDelaySeconds" | "questionTimeoutSeconds"
  | "personIdleSeconds" | "personGraceSeconds" | "maxRenewalsWithoutProgress";

/** The documented bounds (lib/tasks/core/schemas.ts, the database's checks). */
const FIELDS: { name: SettingField; label: string; min: number; max: number; unit: string }[] = [
  { name: "leaseSeconds", label: "Lease length (seconds)", min: 5, max: 3600, unit: "seconds" },
  { name: "maxFailures", label: "Max failures", min: 1, max: 100, unit: "failures" },
  { name: "expiryThreshold", label: "Breaker threshold (expiries)", min: 1, max: 1_000_000, unit: "expiries" },
  { name: "expiryWindowSeconds", label: "Breaker window (seconds)", min: 1, max: 86_400, unit: "seconds" },
  { name: "retryDelaySeconds", label: "Retry delay (seconds)", min: 0, max: 86_400, unit: "seconds" },
  { name: "lockDelaySeconds", label: "Lock delay after a lapse (seconds)", min: LIMITS.lockDelaySeconds.min, max: LIMITS.lockDelaySeconds.max, unit: "seconds" },
  { name: "personIdleSeconds", label: "Keep a person's lease while they were active within (seconds; 0: the lease alone)", min: LIMITS.personIdleSeconds.min, max: LIMITS.personIdleSeconds.max, unit: "seconds" },
  { name: "personGraceSeconds", label: "Agents wait after a person's lapse (seconds)", min: LIMITS.personGraceSeconds.min, max: LIMITS.personGraceSeconds.max, unit: "seconds" },
  { name: "questionTimeoutSeconds", label: "Question deadline (seconds)", min: LIMITS.questionTimeoutSeconds.min, max: LIMITS.questionTimeoutSeconds.max, unit: "seconds" },
  // Leases that may demand progress (docs/leases.md): the renewal after this many without progress fails the attempt.
  { name: "maxRenewalsWithoutProgress", label: "Renewals without progress before the attempt fails (0: no limit)", min: LIMITS.maxRenewalsWithoutProgress.min, max: LIMITS.maxRenewalsWithoutProgress.max, unit: "renewals" },
];

const fmt = (n: number) => n.toLocaleString("en-GB");
const shortLabel = (label: string) => label.replace(/ \(.*\)$/, "");
const rangeSentence = (f: (typeof FIELDS)[number]) => `${shortLabel(f.label)} must be a whole number from ${fmt(f.min)} to ${fmt(f.max)} ${f.unit}.`;

type Problems = Record<string, string>;

/** A refusal from the server, as a sentence on the field it names (or on the form). */
function settingError(error: unknown): Problems {
  const named = error instanceof ActionFailure ? error.error.field : undefined;
  const rule = claimRuleError(named);
  if (rule && named) return { [named]: rule };
  const field = FIELDS.find((f) => f.name === named);
  if (field) return { [field.name]: rangeSentence(field) };
  if (named === "description") return { description: `Description must be at most ${limitText(LIMITS.queueDescription)} characters.` };
  return { form: supervisorErrorSentence(error, "change the settings of") };
}

/** Every value the form can judge before sending, all at once (the server still decides). */
function checkSettings(values: Record<SettingField, number>, ceiling: number | null, description: string): Problems {
  const problems: Problems = {};
  for (const f of FIELDS) {
    const v = values[f.name];
    if (!Number.isInteger(v) || v < f.min || v > f.max) problems[f.name] = rangeSentence(f);
  }
  const { min, max } = LIMITS.maxAttemptSeconds;
  if (ceiling !== null && (!Number.isInteger(ceiling) || ceiling < min || ceiling > max)) problems.maxAttemptSeconds = claimRuleError("maxAttemptSeconds")!;
  if (description.length > LIMITS.queueDescription) problems.description = `Description must be at most ${limitText(LIMITS.queueDescription)} characters; it has ${limitText(description.length)}.`;
  return problems;
}

type Sent = Partial<Record<SettingField, number>> & Pick<QueueSettingsView, "claimants" | "commenters" | "maxAttemptSeconds" | "description"> & Partial<Pick<QueueSettingsView, "review">>;

const RULE_WORDS: Record<string, string> = { anyone: "anyone", people: "people only", agents: "agents only", supervisors: "supervisors only" };
const REVIEW_WORDS: Record<string, string> = { none: "none", agents: "agents' completions", everyone: "every completion" };

/** What a save changed, in words: "lease length 60 → 90 s, who may claim anyone → agents only". */
export function describeSaved(before: QueueSettingsView, sent: Sent): string[] {
  const out: string[] = [];
  for (const f of FIELDS) {
    const to = sent[f.name];
    if (to !== undefined && to !== before[f.name]) out.push(`${shortLabel(f.label).toLowerCase()} ${fmt(before[f.name])} → ${fmt(to)}${f.unit === "seconds" ? " s" : ""}`);
  }
  if (sent.claimants !== before.claimants) out.push(`who may claim ${RULE_WORDS[before.claimants] ?? before.claimants} → ${RULE_WORDS[sent.claimants] ?? sent.claimants}`);
  if (sent.commenters !== undefined && sent.commenters !== before.commenters) out.push(`who may comment ${RULE_WORDS[before.commenters] ?? before.commenters} → ${RULE_WORDS[sent.commenters] ?? sent.commenters}`);
  if (sent.review !== undefined && sent.review !== before.review) out.push(`review before done ${REVIEW_WORDS[before.review] ?? before.review} → ${REVIEW_WORDS[sent.review] ?? sent.review}`);
  if (sent.maxAttemptSeconds !== before.maxAttemptSeconds) {
    const say = (v: number | null) => (v === null ? "none" : `${fmt(v)} s`);
    out.push(`attempt ceiling ${say(before.maxAttemptSeconds)} → ${say(sent.maxAttemptSeconds)}`);
  }
  if (sent.description !== before.description) out.push(sent.description ? "the description" : "the description removed");
  return out;
}

/**
 * One queue's settings (the /queues drawer): every bound beside its input, every value the
 * form can judge checked at once and said on its field, then one call. A save says "Saved."
 * here and, in a toast that outlives the drawer, names the queue and each change.
 */
export function QueueForm({ queue }: { queue: QueueSettingsView }) {
  const [saved, setSaved] = useState(false);
  const toast = useToast();
  const [problems, setProblems] = useState<Problems>({});
  const save = useSupervisorCall(setQueueSettingsAction, {
    verb: "change the settings of",
    toastErrors: false,
    onSuccess: () => setSaved(true),
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = Object.fromEntries(FIELDS.map((f) => [f.name, Number(String(form.get(f.name) ?? "").trim() || NaN)])) as Record<SettingField, number>;
    setSaved(false);
    const description = String(form.get("description") ?? "").trim();
    const rules = claimRuleValues(form);
    const found = checkSettings(values, rules.maxAttemptSeconds, description);
    setProblems(found);
    if (Object.keys(found).length > 0) return focusFirstInvalid(event.currentTarget);
    const sent = { ...values, ...rules, description };
    const changes = describeSaved(queue, sent);
    save.mutate(
      { queue: queue.name, ...sent },
      {
        onError: (error) => setProblems(settingError(error)),
        // The toast names the queue and the change: it outlives the form's "Saved." line.
        onSuccess: () => toast.notify("info", changes.length > 0 ? `Saved ${queue.name}: ${changes.join(", ")}.` : `Saved ${queue.name}: nothing had changed.`),
      },
    );
  };
  const edited = () => setSaved(false);
  const fieldProblems = Object.keys(problems).filter((k) => k !== "form");
  return (
    <form noValidate onSubmit={onSubmit} aria-label={`Settings of ${queue.name}`}>
      {/* Keyed by the saved values: a change (here or elsewhere) resets the inputs to them. */}
      <div key={[...FIELDS.map((f) => queue[f.name]), queue.claimants, queue.commenters, queue.review, queue.maxAttemptSeconds, queue.description].join(":")} className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <TextArea name="description" label="Description" limit={LIMITS.queueDescription} defaultValue={queue.description} onChange={edited} error={problems.description} />
        </div>
        {FIELDS.map((f) => (
          <TextField
            key={f.name}
            name={f.name}
            label={f.label}
            hint={`${fmt(f.min)} to ${fmt(f.max)}`}
            type="number"
            inputMode="numeric"
            step={1}
            defaultValue={queue[f.name]}
            error={problems[f.name]}
            onChange={edited}
          />
        ))}
        <ClaimRuleFields queue={queue} problems={problems} onChange={edited} />
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <Button type="submit" tone="primary" size="sm" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        {saved ? <span role="status" className="text-sm text-green-800">Saved.</span> : null}
        {fieldProblems.length > 0 || problems.form ? (
          <p role="alert" data-testid="form-problem" className="text-sm text-red-800">
            {problems.form ??
              (fieldProblems.length === 1 ? "One setting needs fixing: see the field marked above." : `${fieldProblems.length} settings need fixing: see the fields marked above.`)}
          </p>
        ) : null}
      </div>
    </form>
  );
}
