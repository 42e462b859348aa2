"use client";

import { useState, type FormEvent } from "react";
import { createQueueAction } from "@/app/queues/actions";
import { ActionFailure } from "@/components/task/mutations";
import { Button } from "@/components/ui/button";
import { SelectField, TextArea, TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { CLAIMANT_CHOICES } from "./claim-rule-fields";
import { supervisorErrorSentence, useSupervisorCall } from "./use-supervisor";
import { LIMITS } from "@/lib/limits";

/** The create's refusals in words, by field; the server's sentence names the rest. */
const SENTENCES: Record<string, string> = {
  name: "Name must be 1 to 64 characters of a-z, 0-9, '.', '_' or '-': no spaces or capitals.",
  leaseSeconds: "Lease length must be a whole number from 5 to 3,600 seconds.",
  maxFailures: "Max failures must be a whole number from 1 to 100.",
  retryDelaySeconds: "Retry delay must be a whole number from 0 to 86,400 seconds.",
  description: "Description must be at most 500 characters.",
};

function problemOf(error: unknown): { field: string | null; text: string } {
  if (!(error instanceof ActionFailure)) return { field: null, text: supervisorErrorSentence(error, "create") };
  const field = error.error.field ?? null;
  // "queue 'x' already exists" is the server's own sentence; a bad value gets the bounds.
  const taken = /already exists/.test(error.error.message);
  return { field, text: taken ? `A queue named that already exists: ${error.error.message.replace(/^queue /, "")}.` : (field && SENTENCES[field]) || supervisorErrorSentence(error, "create") };
}

/**
 * A supervisor makes a queue on purpose: the only way one comes to exist (a typo in the
 * New-task form can no longer make one). Blank settings take the defaults.
 */
export function NewQueue() {
  const { notify } = useToast();
  const [problem, setProblem] = useState<{ field: string | null; text: string } | null>(null);
  const [formKey, setFormKey] = useState(0);
  const create = useSupervisorCall(createQueueAction, {
    verb: "create",
    toastErrors: false,
    onSuccess: (queue) => {
      notify("info", `Created queue ${queue.name}: it is in every queue picker now.`);
      setFormKey((k) => k + 1);
    },
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const number = (name: string) => (text(name) === "" ? undefined : Number(text(name)));
    setProblem(null);
    create.mutate(
      {
        name: text("name"),
        ...(text("description") ? { description: text("description") } : {}),
        leaseSeconds: number("leaseSeconds"),
        maxFailures: number("maxFailures"),
        retryDelaySeconds: number("retryDelaySeconds"),
        claimants: text("claimants") as (typeof CLAIMANT_CHOICES)[number]["value"],
      },
      { onError: (error) => setProblem(problemOf(error)) },
    );
  };
  const invalid = (field: string) => (problem?.field === field ? { "aria-invalid": true as const, "aria-describedby": "new-queue-error" } : {});
  return (
    <form key={formKey} noValidate onSubmit={onSubmit} aria-label="New queue" className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <h2 className="font-semibold">New queue</h2>
      <div className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField name="name" label="Name" required maxLength={LIMITS.queueName} hint="a-z, 0-9, '.', '_' or '-'" autoComplete="off" {...invalid("name")} />
        <SelectField name="claimants" label="Who may claim" defaultValue="anyone">
          {CLAIMANT_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </SelectField>
        <div className="sm:col-span-2">
          <TextArea name="description" label="Description" maxLength={LIMITS.queueDescription} hint="What the queue is for (optional)" {...invalid("description")} />
        </div>
        <TextField name="leaseSeconds" label="Lease length (seconds)" type="number" inputMode="numeric" placeholder="120" hint="5 to 3,600; blank: 120" {...invalid("leaseSeconds")} />
        <TextField name="maxFailures" label="Max failures" type="number" inputMode="numeric" placeholder="3" hint="1 to 100; blank: 3" {...invalid("maxFailures")} />
        <TextField name="retryDelaySeconds" label="Retry delay (seconds)" type="number" inputMode="numeric" placeholder="0" hint="0 to 86,400; blank: 0" {...invalid("retryDelaySeconds")} />
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <Button type="submit" tone="primary" size="sm" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create queue"}
        </Button>
        {problem ? (
          <p id="new-queue-error" role="alert" className="text-sm text-red-800">
            {problem.text}
          </p>
        ) : null}
      </div>
    </form>
  );
}
