"use client";

import { EmptyState } from "@/components/ui/empty-state";
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { adoptWebhookAction, createWebhookAction, deleteWebhookAction, deliveriesAction, webhooksAction } from "@/app/webhooks/actions";
import { ActionFailure, unwrap } from "@/components/task/mutations";
import { toWire, type Wire } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { useToast } from "@/components/ui/toaster";
import type { Webhook, WebhookDelivery } from "@/lib/webhooks/ops";
import { eventWords, groupEventTypes } from "@/lib/webhooks/event-groups";
import { supervisorKeys } from "./keys";
import { supervisorErrorSentence, useSupervisorCall } from "./use-supervisor";

export type WebhookView = Wire<Webhook>;
type DeliveryView = Wire<WebhookDelivery>;

/** Every event type of the engine's list, grouped (lib/webhooks/event-groups.ts); "every event" sends all of them, heartbeats included. */
const EVENT_CHOICES = groupEventTypes();

function SecretDialog({ made, onClose }: { made: { url: string; secret: string } | null; onClose: () => void }) {
  return (
    <Dialog open={made !== null} onClose={onClose} title="Webhook registered">
      {made ? (
        <div className="space-y-3">
          <p role="note" className="rounded border border-amber-400 bg-amber-50 px-2 py-1.5 text-sm text-amber-950">
            Copy the signing secret now: it won&apos;t be shown again. {made.url} checks each delivery&apos;s
            <code className="mx-1">webhook-signature</code>with it (Standard Webhooks).
          </p>
          <label className="block text-sm font-medium" htmlFor="new-webhook-secret">Signing secret</label>
          <input id="new-webhook-secret" readOnly value={made.secret} onFocus={(e) => e.currentTarget.select()}
            className="block w-full rounded-md border border-slate-300 bg-slate-50 px-2 py-1.5 font-mono text-xs" />
          <div className="flex justify-end"><Button tone="primary" onClick={onClose}>Done</Button></div>
        </div>
      ) : null}
    </Dialog>
  );
}

function CreateWebhook({ queues, onCreated }: { queues: string[]; onCreated: (made: { url: string; secret: string }) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const create = useSupervisorCall(createWebhookAction, { verb: "register", toastErrors: false });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const every = form.get("every") === "on";
    const events = every ? ["*"] : form.getAll("event").map(String);
    const chosenQueues = form.getAll("queue").map(String);
    setProblem(events.length === 0 ? "Events: choose at least one event, or every event." : null);
    if (events.length === 0) return;
    create.mutate(
      {
        url: String(form.get("url") ?? "").trim(),
        events: events as never,
        ...(chosenQueues.length > 0 ? { queues: chosenQueues } : {}),
        description: String(form.get("description") ?? "").trim(),
      },
      {
        onSuccess: (made) => {
          formElement.reset();
          onCreated({ url: made.webhook.url, secret: made.secret });
        },
        onError: (error) => {
          const field = error instanceof ActionFailure ? error.error.field?.split(".")[0] : undefined;
          setProblem(field ? `${field[0]!.toUpperCase()}${field.slice(1)}: ${(error as ActionFailure).error.message}.` : supervisorErrorSentence(error, "register"));
        },
      },
    );
  };
  return (
    <form noValidate onSubmit={onSubmit} aria-label="Register a webhook" className="space-y-3 rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <h2 className="font-semibold">Register a webhook</h2>
      <TextField name="url" label="Endpoint URL" hint="https:// (private and link-local addresses are refused)" required autoComplete="off" inputMode="url" />
      <TextField name="description" label="Description (optional)" autoComplete="off" />
      <fieldset>
        <legend className="text-sm font-medium text-slate-700">Events</legend>
        <label className="mt-1 flex items-center gap-2 text-sm"><input type="checkbox" name="every" /> Every event (heartbeats included: noisy on a busy board)</label>
        <p className="mt-1 text-xs text-slate-600">Completed is also sent when a reviewer approves a submission (the task reached done by review).</p>
        <div className="mt-1 grid gap-2 sm:grid-cols-2 lg:grid-cols-3" data-testid="event-groups">
          {EVENT_CHOICES.map((group) => (
            <fieldset key={group.id} className="rounded-md border border-slate-200 p-2" data-testid={`event-group-${group.id}`}>
              <legend className="px-1 text-sm font-medium text-slate-700">{group.label}</legend>
              <div className="flex flex-wrap gap-x-4 gap-y-1">
                {group.types.map(({ type, label }) => (
                  <label key={type} className="flex items-center gap-1.5 text-sm" title={label}>
                    <input type="checkbox" name="event" value={type} defaultChecked={type === "escalated"} /> {eventWords(type)}
                  </label>
                ))}
              </div>
            </fieldset>
          ))}
        </div>
      </fieldset>
      {queues.length > 0 ? (
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">Queues (none chosen: every queue)</legend>
          <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
            {queues.map((queue) => (
              <label key={queue} className="flex items-center gap-1.5 text-sm"><input type="checkbox" name="queue" value={queue} /> {queue}</label>
            ))}
          </div>
        </fieldset>
      ) : null}
      <Button type="submit" tone="primary" disabled={create.isPending}>{create.isPending ? "Registering…" : "Register webhook"}</Button>
      {problem ? <p role="alert" className="text-sm text-red-800">{problem}</p> : null}
    </form>
  );
}

const STATUS_TONE = { pending: "amber", delivered: "green", failed: "red" } as const;

function Deliveries({ id }: { id: string }) {
  const { data, error } = useQuery({
    queryKey: supervisorKeys.deliveries(id),
    queryFn: async () => toWire(await unwrap(deliveriesAction({ id, limit: 50 }))),
  });
  if (error) return <p role="alert" className="text-sm text-red-800">The delivery log could not be read: {supervisorErrorSentence(error, "read")}</p>;
  if (!data) return <p className="text-sm text-slate-600">Reading the delivery log…</p>;
  if (data.deliveries.length === 0) return <p className="text-sm text-slate-600">Nothing delivered yet: deliveries appear here as matching events happen.</p>;
  return (
    <ol aria-label="Delivery log" className="divide-y divide-slate-200 text-sm">
      {data.deliveries.map((d: DeliveryView) => (
        <li key={d.id} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 py-1.5">
          <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>
          <span className="font-medium">{eventWords(d.type)}</span>
          <span className="text-slate-600" data-testid="delivery-matched">
            matched {d.matched === "*" ? "every event" : d.matched === d.type ? `“${eventWords(d.matched)}”` : `“${eventWords(d.matched)}” (which includes ${eventWords(d.type)})`}
          </span>
          <span className="text-slate-600">{d.taskId ? `task ${d.taskId}` : d.queue}</span>
          <span className="text-slate-600"><LocalTime iso={d.eventAt} withDate /></span>
          <span className="text-slate-600">{d.attempts} {d.attempts === 1 ? "try" : "tries"}{d.lastStatus ? `, last HTTP ${d.lastStatus}` : ""}</span>
          {d.nextAttemptAt && d.attempts > 0 ? <span className="text-slate-600">next try <LocalTime iso={d.nextAttemptAt} /></span> : null}
          {d.lastError ? <span className="w-full break-words text-red-800">{d.lastError}</span> : null}
        </li>
      ))}
    </ol>
  );
}

/** Supervisors' webhooks: register (the secret shown once), see each one's delivery log, delete. */
export function Webhooks({ initial, queues }: { initial: WebhookView[]; queues: string[] }) {
  const { notify } = useToast();
  const { data } = useQuery({ queryKey: supervisorKeys.webhooks, queryFn: async () => toWire(await unwrap(webhooksAction({}))), initialData: initial });
  const [made, setMade] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const remove = useSupervisorCall(deleteWebhookAction, { verb: "delete", onSuccess: () => notify("info", "Webhook deleted; nothing more is sent to it.") });
  const adopt = useSupervisorCall(adoptWebhookAction, { verb: "change", onSuccess: () => notify("info", "Webhook adopted: it acts with your authority and delivers again.") });
  return (
    <div className="space-y-6">
      <CreateWebhook queues={queues} onCreated={setMade} />
      <section aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading" className="mb-2 text-lg font-semibold">Webhooks</h2>
        {data.length === 0 ? (
          <EmptyState testId="webhooks-empty" action={{ label: "Register a webhook", focus: 'form[aria-label="Register a webhook"] input' }}>
            No webhooks yet: a webhook tells another system of events (a task done, escalated…) without the board open.
          </EmptyState>
        ) : null}
        <ul className="space-y-2">
          {data.map((hook) => (
            <li key={hook.id} className="rounded-lg border border-slate-200 bg-white p-3" data-testid="webhook">
              <div className="flex flex-wrap items-center gap-2">
                <span className="min-w-0 flex-1 font-mono text-sm break-all">{hook.url}</span>
                {hook.disabledAt ? <Badge tone="red" title={hook.disabledReason ?? undefined}>disabled: {hook.disabledReason}</Badge>
                  : hook.authorityEndedAt ? <Badge tone="amber">paused: {hook.authorityEndedReason}</Badge> : <Badge tone="green">active</Badge>}
                {hook.authorityEndedAt && !hook.disabledAt ? (
                  <Button size="sm" tone="primary" aria-label={`Adopt webhook ${hook.url}`} disabled={adopt.isPending} onClick={() => adopt.mutate({ id: hook.id })}>Adopt</Button>
                ) : null}
                <Button size="sm" onClick={() => setOpen(open === hook.id ? null : hook.id)} aria-expanded={open === hook.id}>
                  {open === hook.id ? "Hide deliveries" : "Deliveries"}
                </Button>
                <Button size="sm" tone="danger" aria-label={`Delete webhook ${hook.url}`} disabled={remove.isPending} onClick={() => remove.mutate({ id: hook.id })}>Delete</Button>
              </div>
              <p className="mt-1 text-sm text-slate-600">
                {hook.events.includes("*") ? "every event" : hook.events.map(eventWords).join(", ")}
                {" · "}{hook.queues ? `queues ${hook.queues.join(", ")}` : "every queue"}
                {hook.description ? ` · ${hook.description}` : ""}
              </p>
              {open === hook.id ? <div className="mt-2 border-t border-slate-200 pt-2"><Deliveries id={hook.id} /></div> : null}
            </li>
          ))}
        </ul>
      </section>
      <SecretDialog made={made} onClose={() => setMade(null)} />
    </div>
  );
}
