"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { bulkSuperviseAction } from "@/app/actions/supervise";
import { inboxAction } from "@/app/inbox/actions";
import { describeError } from "@/components/task/describe-error";
import { unwrap, useTaskMutation } from "@/components/task/mutations";
import { toWire } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { SelectField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toaster";
import { Breakers } from "./breakers";
import { EscalatedTask, type InboxDecision } from "./escalated-task";
import { supervisorKeys } from "./keys";
import type { InboxView } from "./types";
import { useSupervisorCall } from "./use-supervisor";

const verbs: Record<InboxDecision, { label: string; past: string; pending: string }> = {
  requeue: { label: "Requeue", past: "Requeued", pending: "Requeueing…" },
  resolve: { label: "Resolve", past: "Resolved", pending: "Resolving…" },
  cancel: { label: "Cancel", past: "Cancelled", pending: "Cancelling…" },
};

const plural = (n: number) => `${n} task${n === 1 ? "" : "s"}`;

/** The escalation inbox: escalated tasks of the filter, one at a time or all at once, and the breakers. */
export function Inbox({ initial, queues }: { initial: InboxView; queues: string[] }) {
  const router = useRouter();
  const client = useQueryClient();
  const { notify } = useToast();
  const queue = initial.queue;
  const key = supervisorKeys.inbox(queue);
  const { data } = useQuery({
    queryKey: key,
    queryFn: async () => toWire(await unwrap(inboxAction({ queue }))),
    initialData: initial,
  });
  const [confirming, setConfirming] = useState<InboxDecision | null>(null);

  const dropFromInbox = (ids: string[]) =>
    client.setQueryData<InboxView>(key, (old) => (old ? { ...old, escalated: old.escalated.filter((e) => !ids.includes(e.task.id)) } : old));

  const single = useTaskMutation({
    onDone: (call) => {
      dropFromInbox([call.task.id]);
      notify("info", `${verbs[call.action as InboxDecision].past} “${call.task.title}”.`);
      void client.invalidateQueries({ queryKey: supervisorKeys.all });
    },
  });

  const bulk = useSupervisorCall(bulkSuperviseAction, {
    verb: "change",
    onSuccess: (outcome) => {
      dropFromInbox(outcome.done);
      const head = `${verbs[outcome.action].past} ${plural(outcome.succeeded)}.`;
      if (outcome.conflicts.length === 0) return notify("info", head);
      const detail = outcome.conflicts
        .slice(0, 5)
        .map((c) => `#${c.taskId}: ${describeError({ code: c.code as never, message: c.message }, outcome.action)}`)
        .join(" ");
      notify("error", `${head} ${plural(outcome.conflicts.length)} did not change — ${detail}`);
    },
  });

  const items = data.escalated;
  const pendingFor = (id: string) =>
    single.isPending && single.variables?.task.id === id ? verbs[single.variables.action as InboxDecision].pending : bulk.isPending ? "Working…" : null;

  const runBulk = (decision: InboxDecision) => {
    setConfirming(null);
    bulk.mutate({ action: decision, tasks: items.map(({ task }) => ({ taskId: task.id, version: task.version })) });
  };

  return (
    <div className="space-y-6">
      <section aria-labelledby="escalated-heading" className="space-y-3">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <h2 id="escalated-heading" className="text-lg font-semibold">
            Escalated tasks <span className="text-slate-600">({items.length}{data.truncated ? "+" : ""})</span>
          </h2>
          <div className="w-full sm:w-60">
            <SelectField
              label="Queue"
              value={queue ?? ""}
              onChange={(e) => router.push(e.target.value ? `/inbox?queue=${encodeURIComponent(e.target.value)}` : "/inbox")}
            >
              <option value="">All queues</option>
              {queues.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </SelectField>
          </div>
        </div>
        <div role="group" aria-label="All escalated tasks shown" className="flex flex-wrap gap-2">
          {(Object.keys(verbs) as InboxDecision[]).map((decision) => (
            <Button
              key={decision}
              size="sm"
              tone={decision === "cancel" ? "danger" : "secondary"}
              disabled={items.length === 0 || bulk.isPending}
              onClick={() => setConfirming(decision)}
            >
              {verbs[decision].label} all ({items.length})
            </Button>
          ))}
          {bulk.isPending ? <span role="status" className="text-sm text-slate-600">Working…</span> : null}
        </div>
        {data.truncated ? (
          <p className="text-sm text-slate-600">Only the newest {items.length} are shown; bulk actions apply to these.</p>
        ) : null}
        {items.length === 0 ? <p className="text-sm text-slate-600">Nothing is escalated{queue ? ` in ${queue}` : ""}.</p> : null}
        <ul className="space-y-3">
          {items.map((item) => (
            <EscalatedTask
              key={item.task.id}
              item={item}
              pending={pendingFor(item.task.id)}
              onDecide={(action, task) => single.mutate({ action, task })}
            />
          ))}
        </ul>
      </section>
      <Breakers breakers={data.breakers} />
      <Dialog open={confirming !== null} onClose={() => setConfirming(null)} title={confirming ? `${verbs[confirming].label} ${plural(items.length)}?` : ""}>
        {confirming ? (
          <div className="space-y-4">
            <p className="text-sm">
              Every escalated task shown{queue ? ` in queue ${queue}` : ""} will be {verbs[confirming].past.toLowerCase()}. Tasks someone changes
              meanwhile are left alone and listed afterwards.
            </p>
            <div className="flex flex-wrap justify-end gap-2">
              <Button onClick={() => setConfirming(null)}>Keep them</Button>
              <Button tone={confirming === "cancel" ? "danger" : "primary"} onClick={() => runBulk(confirming)}>
                {verbs[confirming].label} {plural(items.length)}
              </Button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </div>
  );
}
