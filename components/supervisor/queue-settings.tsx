"use client";

import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { setQueuePausedAction, setQueueSettingsAction } from "@/app/actions/supervise";
import { queueSettingsListAction } from "@/app/queues/actions";
import { ActionFailure, unwrap } from "@/components/task/mutations";
import { toWire } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TextArea, TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { useToast } from "@/components/ui/toaster";
import { supervisorKeys } from "./keys";
import { ClaimRuleFields, claimRuleError, claimRuleValues } from "./claim-rule-fields";
import { NewQueue } from "./new-queue";
import { ArchiveControl } from "./queue-archive";
import { QueueCounts } from "./queue-counts";
import type { QueueSettingsView } from "./types";
import { supervisorErrorSentence, useSupervisorCall } from "./use-supervisor";
import { LIMITS } from "@/lib/limits";

type SettingField = "leaseSeconds" | "maxFailures" | "expiryThreshold" | "expiryWindowSeconds" | "retryDelaySeconds" | "lockDelaySeconds" | "questionTimeoutSeconds";

/** The documented bounds (lib/tasks/core/schemas.ts, the database's checks). */
const FIELDS: { name: SettingField; label: string; min: number; max: number; unit: string }[] = [
  { name: "leaseSeconds", label: "Lease length (seconds)", min: 5, max: 3600, unit: "seconds" },
  { name: "maxFailures", label: "Max failures", min: 1, max: 100, unit: "failures" },
  { name: "expiryThreshold", label: "Breaker threshold (expiries)", min: 1, max: 1_000_000, unit: "expiries" },
  { name: "expiryWindowSeconds", label: "Breaker window (seconds)", min: 1, max: 86_400, unit: "seconds" },
  { name: "retryDelaySeconds", label: "Retry delay (seconds)", min: 0, max: 86_400, unit: "seconds" },
  { name: "lockDelaySeconds", label: "Lock delay after a lapse (seconds)", min: LIMITS.lockDelaySeconds.min, max: LIMITS.lockDelaySeconds.max, unit: "seconds" },
  { name: "questionTimeoutSeconds", label: "Question deadline (seconds)", min: LIMITS.questionTimeoutSeconds.min, max: LIMITS.questionTimeoutSeconds.max, unit: "seconds" },
];

/** Pause (claims hand out nothing; owners finish) or resume a queue. */
function PauseControl({ queue }: { queue: QueueSettingsView }) {
  const toggle = useSupervisorCall(setQueuePausedAction, { verb: queue.paused ? "resume" : "pause" });
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
      {queue.paused ? (
        <p className="text-amber-900" data-testid="paused-note">
          Paused{queue.pausedBy ? ` by ${queue.pausedBy}` : ""}
          {queue.pausedAt ? <> since <LocalTime iso={queue.pausedAt} withDate /></> : null}: claims hand out nothing; owners finish what they hold.
        </p>
      ) : null}
      <Button size="sm" disabled={toggle.isPending} onClick={() => toggle.mutate({ queue: queue.name, paused: !queue.paused })}>
        {queue.paused ? `Resume ${queue.name}` : `Pause ${queue.name}`}
      </Button>
      <ArchiveControl queue={queue} />
    </div>
  );
}

const fmt = (n: number) => n.toLocaleString("en-GB");

/** A readable sentence for a refused setting, naming the field by its label and its bounds. */
function settingError(error: unknown): { field: string | null; text: string } {
  const rule = error instanceof ActionFailure ? claimRuleError(error.error.field) : null;
  if (rule) return { field: (error as ActionFailure).error.field!, text: rule };
  const field = error instanceof ActionFailure ? FIELDS.find((f) => f.name === error.error.field) : undefined;
  if (field) return { field: field.name, text: `${field.label.replace(/ \(.*\)$/, "")} must be a whole number from ${fmt(field.min)} to ${fmt(field.max)} ${field.unit}.` };
  return { field: null, text: supervisorErrorSentence(error, "change the settings of") };
}

type Sent = Partial<Record<SettingField, number>> & Pick<QueueSettingsView, "claimants" | "commenters" | "maxAttemptSeconds" | "description">;

const RULE_WORDS: Record<string, string> = { anyone: "anyone", people: "people only", agents: "agents only" };

/** What a save changed, in words: "lease length 60 → 90 s, who may claim anyone → agents only". */
export function describeSaved(before: QueueSettingsView, sent: Sent): string[] {
  const out: string[] = [];
  for (const f of FIELDS) {
    const to = sent[f.name];
    if (to !== undefined && to !== before[f.name]) out.push(`${f.label.replace(/ \(.*\)$/, "").toLowerCase()} ${fmt(before[f.name])} → ${fmt(to)}${f.unit === "seconds" ? " s" : ""}`);
  }
  if (sent.claimants !== before.claimants) out.push(`who may claim ${RULE_WORDS[before.claimants] ?? before.claimants} → ${RULE_WORDS[sent.claimants] ?? sent.claimants}`);
  if (sent.commenters !== undefined && sent.commenters !== before.commenters) out.push(`who may comment ${RULE_WORDS[before.commenters] ?? before.commenters} → ${RULE_WORDS[sent.commenters] ?? sent.commenters}`);
  if (sent.maxAttemptSeconds !== before.maxAttemptSeconds) {
    const say = (v: number | null) => (v === null ? "none" : `${fmt(v)} s`);
    out.push(`attempt ceiling ${say(before.maxAttemptSeconds)} → ${say(sent.maxAttemptSeconds)}`);
  }
  if (sent.description !== before.description) out.push(sent.description ? "the description" : "the description removed");
  return out;
}

function QueueForm({ queue }: { queue: QueueSettingsView }) {
  const [saved, setSaved] = useState(false);
  const toast = useToast();
  const [problem, setProblem] = useState<{ field: string | null; text: string } | null>(null);
  const save = useSupervisorCall(setQueueSettingsAction, {
    verb: "change the settings of",
    toastErrors: false,
    onSuccess: () => setSaved(true),
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = Object.fromEntries(FIELDS.map((f) => [f.name, Number(String(form.get(f.name) ?? "").trim() || NaN)]));
    setSaved(false);
    setProblem(null);
    const description = String(form.get("description") ?? "").trim();
    const sent = { ...values, ...claimRuleValues(form), description };
    const changes = describeSaved(queue, sent);
    save.mutate(
      { queue: queue.name, ...sent },
      {
        onError: (error) => setProblem(settingError(error)),
        // The toast names the queue and the change: it outlives the form's "Saved." line.
        onSuccess: () => toast.notify("info", changes.length > 0 ? `Saved ${queue.name}: ${changes.join(", ")}.` : `Saved ${queue.name}: nothing had changed.`),
      },
    );
  };
  const errorId = `queue-${queue.name}-error`;
  return (
    <form noValidate onSubmit={onSubmit} aria-label={`Settings of ${queue.name}`} className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="font-semibold">{queue.name}</h2>
        <div className="flex flex-wrap gap-1">
          {queue.paused ? <Badge tone="amber">paused</Badge> : null}
          {queue.breakerTrippedAt ? (
            <Badge tone="red" title={queue.breakerReason ?? undefined}>
              breaker tripped
            </Badge>
          ) : (
            <Badge tone="green" title="The breaker is closed: claims are handed out.">healthy</Badge>
          )}
        </div>
      </div>
      {queue.description ? <p className="mt-1 text-sm text-slate-700" data-testid="queue-description">{queue.description}</p> : null}
      <QueueCounts queue={queue} />
      <PauseControl queue={queue} />
      {queue.breakerTrippedAt ? (
        <p className="mt-1 text-sm text-red-900">
          {queue.breakerReason} (since <LocalTime iso={queue.breakerTrippedAt} withDate />). Reset it from the inbox.
        </p>
      ) : null}
      {/* Keyed by the saved values: a change (here or elsewhere) resets the inputs to them. */}
      <div key={[...FIELDS.map((f) => queue[f.name]), queue.claimants, queue.review, queue.maxAttemptSeconds, queue.description].join(":")} className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <TextArea name="description" label="Description" maxLength={LIMITS.queueDescription} defaultValue={queue.description} onChange={() => setSaved(false)}
            aria-invalid={problem?.field === "description" ? true : undefined} aria-describedby={problem?.field === "description" ? errorId : undefined} />
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
            aria-invalid={problem?.field === f.name ? true : undefined}
            aria-describedby={problem?.field === f.name ? errorId : undefined}
            onChange={() => setSaved(false)}
          />
        ))}
        <ClaimRuleFields queue={queue} invalid={problem?.field ?? null} errorId={errorId} onChange={() => setSaved(false)} />
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <Button type="submit" tone="primary" size="sm" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        {saved ? <span role="status" className="text-sm text-green-800">Saved.</span> : null}
        {problem ? (
          <p id={errorId} role="alert" className="text-sm text-red-800">
            {problem.text}
          </p>
        ) : null}
      </div>
    </form>
  );
}

/** An archived queue: its state, counts and history kept; only Restore is offered. */
function ArchivedQueue({ queue }: { queue: QueueSettingsView }) {
  return (
    <section aria-label={`Archived queue ${queue.name}`} className="rounded-lg border border-slate-200 bg-slate-50 p-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-semibold">{queue.name}</h3>
        <Badge tone="slate">archived</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        Archived{queue.archivedBy ? ` by ${queue.archivedBy}` : ""}
        {queue.archivedAt ? <> on <LocalTime iso={queue.archivedAt} withDate /></> : null}: hidden from the pickers; no new tasks or claims.
      </p>
      <QueueCounts queue={queue} />
      <div className="mt-2">
        <ArchiveControl queue={queue} />
      </div>
    </section>
  );
}

/**
 * Every queue: a form to make one, each open queue's live counts, state and settings, and
 * the archived ones apart. Refetched whenever events arrive (every task that moves changes
 * a count), through the supervisors' query keys (components/realtime/invalidate.ts).
 */
export function QueueSettings({ initial }: { initial: QueueSettingsView[] }) {
  const { data } = useQuery({
    queryKey: supervisorKeys.queues,
    queryFn: async () => toWire(await unwrap(queueSettingsListAction({}))),
    initialData: initial,
  });
  const open = data.filter((q) => !q.archivedAt);
  const archived = data.filter((q) => q.archivedAt);
  return (
    <div className="space-y-4">
      <NewQueue />
      <ul className="space-y-4" aria-label="Queues">
        {open.map((queue) => (
          <li key={queue.name}>
            <QueueForm queue={queue} />
          </li>
        ))}
      </ul>
      {archived.length > 0 ? (
        <div>
          <h2 className="mb-2 font-semibold text-slate-800">Archived queues</h2>
          <ul className="space-y-3">
            {archived.map((queue) => (
              <li key={queue.name}>
                <ArchivedQueue queue={queue} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
