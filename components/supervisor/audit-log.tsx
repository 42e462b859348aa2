"use client";

import { useQuery } from "@tanstack/react-query";
import { auditAction } from "@/app/actions/supervise";
import { unwrap } from "@/components/task/mutations";
import { toWire, type Wire } from "@/components/task/wire";
import { LocalTime } from "@/components/ui/local-time";
import type { AuditRow, AuditSubject } from "@/lib/auth/audit";
import { supervisorKeys } from "./keys";

export type AuditView = Wire<AuditRow>;

const text = (value: unknown) => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");

/** What was done to whom, as a sentence after the actor's name. */
export function auditSentence(row: AuditView): string {
  const name = row.subject.name;
  const detail = row.detail;
  switch (row.action) {
    case "person_invited":
      return `invited ${name} (${text(detail.email)}) as ${text(detail.role)}`;
    case "role_changed":
      return `changed the role of ${name} from ${text(detail.from)} to ${text(detail.to)}`;
    case "person_disabled":
      return `disabled ${name}`;
    case "person_enabled":
      return `enabled ${name}`;
    case "sign_in_unlocked":
      return `unlocked the sign-in of ${name}`;
    case "token_created":
      return `created the ${text(detail.role)} token ${name}`;
    case "token_revoked":
      return `revoked the token ${name}`;
    case "token_budget_set": {
      const cap = detail.monthlyBudget as { limit?: unknown; unit?: unknown } | null | undefined;
      return cap ? `set the monthly budget of ${name} to ${text(cap.limit)} ${text(cap.unit)}` : `lifted the monthly budget of ${name}`;
    }
    case "webhook_created":
      return `registered the webhook ${name}`;
    case "webhook_deleted":
      return `deleted the webhook ${name}`;
    case "webhook_disabled":
      return `disabled the webhook ${name}: it answered 410 Gone`;
    case "webhook_paused":
      return `paused the webhook ${name}: ${text(detail.reason)}`;
    case "webhook_adopted":
      return `adopted the webhook ${name}${detail.ended ? ` (paused: ${text(detail.ended)})` : ""}`;
    case "schedule_created":
      return `created the schedule ${name} (${text(detail.cron)} ${text(detail.timezone)}, queue ${text(detail.queue)})`;
    case "schedule_changed":
      return `changed the schedule ${name} (${Array.isArray(detail.fields) ? detail.fields.map(text).join(", ") : ""})`;
    case "schedule_paused":
      return detail.reason ? `paused the schedule ${name}: ${text(detail.reason)}` : `paused the schedule ${name}`;
    case "schedule_resumed":
      return `resumed the schedule ${name}`;
    case "schedule_deleted":
      return `deleted the schedule ${name}`;
    case "schedule_adopted":
      return `adopted the schedule ${name}${detail.ended ? ` (paused: ${text(detail.ended)})` : ""}`;
    case "password_changed":
      return "changed their own password";
    case "password_reset_issued":
      return `issued a one-time password reset link for ${name}`;
    case "password_reset_used":
      return "set a new password with a reset link";
  }
}

/**
 * The audit records about people or about tokens (lib/auth/audit.ts): who did what to whom,
 * when, newest first. Refetched with the other supervisor pages after every change made here.
 */
export function AuditLog({ subject, initial }: { subject: AuditSubject; initial: AuditView[] }) {
  const { data } = useQuery({
    queryKey: supervisorKeys.audit(subject),
    queryFn: async () => toWire(await unwrap(auditAction({ subject }))),
    initialData: initial,
  });
  const heading = { person: "Changes to people", token: "Changes to tokens", webhook: "Changes to webhooks", schedule: "Changes to schedules" }[subject];
  return (
    <section aria-labelledby={`audit-${subject}-heading`} data-testid="audit-log">
      <h2 id={`audit-${subject}-heading`} className="mb-2 text-lg font-semibold">{heading}</h2>
      {data.length === 0 ? <p className="text-sm text-slate-600">Nothing changed yet.</p> : (
        <ol className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white text-sm">
          {data.map((row) => (
            <li key={row.id} className="flex flex-wrap items-baseline gap-x-3 px-3 py-2">
              <span className="whitespace-nowrap text-slate-700"><LocalTime iso={row.createdAt} withDate /></span>
              <span><span className="font-medium">{row.actor.name}</span> {auditSentence(row)}</span>
            </li>
          ))}
        </ol>
      )}
      {data.length > 0 ? <p className="mt-1 text-xs text-slate-600">The latest {data.length}; the record cannot be changed or deleted.</p> : null}
    </section>
  );
}
