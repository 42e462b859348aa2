"use client";

import { useState, type FormEvent } from "react";
import { createQueueAction } from "@/app/queues/actions";
import { ActionFailure } from "@/components/task/mutations";
import { Button } from "@/components/ui/button";
import { focusFirstInvalid, SelectField, TextArea, TextField } from "@/components/ui/field";
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

/** Blank takes the default; otherwise a whole number within the bounds. */
const NUMBERS: Record<string, [number, number]> = { leaseSeconds: [5, 3600], maxFailures: [1, 100], retryDelaySeconds: [0, 86_400] };

type Problems = Record<string, string>;

function problemOf(error: unknown): Problems {
  if (!(error instanceof ActionFailure)) return { form: supervisorErrorSentence(error, "create") };
  const field = error.error.field ?? null;
  // "queue 'x' already exists" is the server's own sentence; a bad value gets the bounds.
  if (/already exists/.test(error.error.message)) return { name: `A queue named that already exists: ${error.error.message.replace(/^queue /, "")}.` };
  if (field && SENTENCES[field]) return { [field]: SENTENCES[field] };
  return { form: supervisorErrorSentence(error, "create") };
}

/** Everything the form can judge, at once: each sentence goes on its field. */
function check(text: (name: string) => string): Problems {
  const problems: Problems = {};
  if (!/^[a-z0-9._-]{1,64}$/.test(text("name"))) problems.name = SENTENCES.name!;
  if (text("description").length > LIMITS.queueDescription) problems.description = SENTENCES.description!;
  for (const [name, [min, max]] of Object.entries(NUMBERS)) {
    if (text(name) === "") continue;
    const n = Number(text(name));
    if (!Number.isInteger(n) || n < min || n > max) problems[name] = SENTENCES[name]!;
  }
  return problems;
}

/**
 * A supervisor makes a queue on purpose: the only way one comes to exist (a typo in the
 * New-task form can no longer make one). Blank settings take the defaults.
 */
export function NewQueue({ onCreated }: { onCreated?: () => void }) {
  const { notify } = useToast();
  const [problems, setProblems] = useState<Problems>({});
  const [formKey, setFormKey] = useState(0);
  const create = useSupervisorCall(createQueueAction, {
    verb: "create",
    toastErrors: false,
    onSuccess: (queue) => {
      notify("info", `Created queue ${queue.name}: it is in every queue picker now.`);
      setFormKey((k) => k + 1);
      onCreated?.();
    },
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim();
    const number = (name: string) => (text(name) === "" ? undefined : Number(text(name)));
    const found = check(text);
    setProblems(found);
    if (Object.keys(found).length > 0) return focusFirstInvalid(event.currentTarget);
    create.mutate(
      {
        name: text("name"),
        ...(text("description") ? { description: text("description") } : {}),
        leaseSeconds: number("leaseSeconds"),
        maxFailures: number("maxFailures"),
        retryDelaySeconds: number("retryDelaySeconds"),
        claimants: text("claimants") as (typeof CLAIMANT_CHOICES)[number]["value"],
      },
      { onError: (error) => setProblems(problemOf(error)) },
    );
  };
  const fields = Object.keys(problems).filter((k) => k !== "form");
  return (
    <form key={formKey} noValidate onSubmit={onSubmit} aria-label="New queue">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField name="name" label="Name" required hint="a-z, 0-9, '.', '_' or '-'" autoComplete="off" data-autofocus error={problems.name} />
        <SelectField name="claimants" label="Who may claim" defaultValue="anyone">
          {CLAIMANT_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </SelectField>
        <div className="sm:col-span-2">
          <TextArea name="description" label="Description" limit={LIMITS.queueDescription} hint="What the queue is for (optional)" error={problems.description} />
        </div>
        <TextField name="leaseSeconds" label="Lease length (seconds)" type="number" inputMode="numeric" placeholder="120" hint="5 to 3,600; blank: 120" error={problems.leaseSeconds} />
        <TextField name="maxFailures" label="Max failures" type="number" inputMode="numeric" placeholder="3" hint="1 to 100; blank: 3" error={problems.maxFailures} />
        <TextField name="retryDelaySeconds" label="Retry delay (seconds)" type="number" inputMode="numeric" placeholder="0" hint="0 to 86,400; blank: 0" error={problems.retryDelaySeconds} />
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <Button type="submit" tone="primary" size="sm" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create queue"}
        </Button>
        {problems.form || fields.length > 0 ? (
          <p role="alert" data-testid="form-problem" className="text-sm text-red-800">
            {problems.form ?? (fields.length === 1 ? "One field needs fixing: see the field marked above." : `${fields.length} fields need fixing: see the fields marked above.`)}
          </p>
        ) : null}
      </div>
    </form>
  );
}
