"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { bulkSuperviseAction } from "@/app/actions/supervise";
import { inboxAction } from "@/app/inbox/actions";
import { describeError } from "@/components/task/describe-error";
import { unwrap, useTaskMutation } from "@/components/task/mutations";
import { toWire, type TaskView } from "@/components/task/wire";
import { useToast } from "@/components/ui/toaster";
import { Breakers } from "./breakers";
import { DecisionDialog, type PendingDecision } from "./decision-dialog";
import { decisions } from "./decisions";
import { EscalatedTask, type InboxDecision } from "./escalated-task";
import { InboxToolbar } from "./inbox-toolbar";
import { groupByReason, inboxHref, plural, visibleItems, type InboxSort, type ReasonGroup } from "./inbox-view";
import { supervisorKeys } from "./keys";
import { ReasonGroups } from "./reason-groups";
import { RequeueToDialog } from "./requeue-to";
import type { InboxTaskView, InboxView } from "./types";
import { useAgeClock } from "./use-age-clock";
import { useSupervisorCall } from "./use-supervisor";

/**
 * The escalation inbox at volume: search, sort by age, select rows (shift-click for a range)
 * and decide for the selection, for everything the search matches, or for a group of tasks
 * that failed for the same reason — one engine call per decision. Cancel always asks first.
 */
export function Inbox({ initial, queues, initialSearch = "", initialSort = "waiting" }: { initial: InboxView; queues: string[]; initialSearch?: string; initialSort?: InboxSort }) {
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
  const [search, setSearch] = useState(initialSearch);
  const [sort, setSort] = useState<InboxSort>(initialSort);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const anchor = useRef<number | null>(null);
  const [confirming, setConfirming] = useState<PendingDecision | null>(null);
  const [moving, setMoving] = useState<TaskView | null>(null);
  const now = useAgeClock();

  const shown = useMemo(() => visibleItems(data.escalated, search, sort), [data.escalated, search, sort]);
  const groups = useMemo(() => groupByReason(shown), [shown]);
  // The selection only ever holds rows on screen: a task that left the inbox (decided here,
  // elsewhere, or hidden by the search) drops out of it.
  const chosen = shown.filter(({ task }) => selected.has(task.id));
  useEffect(() => {
    anchor.current = null;
    // Keep the address in step without a navigation: the filtering happens here, not on the server.
    const href = inboxHref(queue, search, sort);
    if (`${window.location.pathname}${window.location.search}` !== href) window.history.replaceState(window.history.state, "", href);
  }, [search, sort, queue]);

  const dropFromInbox = (ids: string[]) => {
    client.setQueryData<InboxView>(key, (old) => (old ? { ...old, escalated: old.escalated.filter((e) => !ids.includes(e.task.id)) } : old));
    setSelected((old) => new Set([...old].filter((id) => !ids.includes(id))));
  };

  const single = useTaskMutation({
    onDone: (call) => {
      dropFromInbox([call.task.id]);
      // No Undo: none of the three has a reverse move in the machine (docs/board.md "Undo").
      notify(
        "info",
        <>
          {decisions[call.action as InboxDecision].past} “{call.task.title}”.{" "}
          <Link href={`/tasks/${call.task.id}`} className="text-blue-700 underline">
            Open #{call.task.id}
          </Link>
        </>,
      );
      void client.invalidateQueries({ queryKey: supervisorKeys.all });
    },
    // Refused: someone decided first and the stream may not have said so yet; the inbox is read again.
    onFailed: () => void client.invalidateQueries({ queryKey: supervisorKeys.all }),
  });

  const bulk = useSupervisorCall(bulkSuperviseAction, {
    verb: "change",
    onSuccess: (outcome) => {
      dropFromInbox(outcome.done);
      const head = `${decisions[outcome.action].past} ${plural(outcome.succeeded)}.`;
      if (outcome.conflicts.length === 0) return notify("info", head);
      const detail = outcome.conflicts
        .slice(0, 5)
        .map((c) => `#${c.taskId}: ${describeError({ code: c.code as never, message: c.message }, outcome.action)}`)
        .join(" ");
      notify("error", `${head} ${plural(outcome.conflicts.length)} did not change — ${detail}`);
    },
  });

  const pendingFor = (id: string) =>
    single.isPending && single.variables?.task.id === id ? decisions[single.variables.action as InboxDecision].pending : bulk.isPending ? "Working…" : null;

  const select = (index: number, on: boolean, range: boolean) => {
    const from = range && anchor.current !== null ? Math.min(anchor.current, index) : index;
    const to = range && anchor.current !== null ? Math.max(anchor.current, index) : index;
    const ids = shown.slice(from, to + 1).map(({ task }) => task.id);
    setSelected((old) => {
      const next = new Set(old);
      for (const id of ids) if (on) next.add(id); else next.delete(id);
      return next;
    });
    anchor.current = index;
  };

  const decide = (decision: InboxDecision, items: InboxTaskView[], scope: string) => {
    if (items.length === 0) return;
    // One task, requeue or resolve: at once (optimistic). Cancel, or many: confirm first.
    if (items.length === 1 && decision !== "cancel") return single.mutate({ action: decision, task: items[0]!.task as TaskView });
    setConfirming({ decision, items, scope });
  };

  const confirm = ({ decision, items }: PendingDecision, reason: string) => {
    setConfirming(null);
    if (items.length === 1) return single.mutate({ action: decision, task: items[0]!.task as TaskView, vars: reason ? { reason } : {} });
    bulk.mutate({ action: decision, ...(reason ? { reason } : {}), tasks: items.map(({ task }) => ({ taskId: task.id, version: task.version })) });
  };

  const groupScope = (group: ReasonGroup) => `that failed with “${group.reason}”`;

  return (
    <div className="space-y-6">
      <section aria-labelledby="escalated-heading" className="space-y-3">
        <h2 id="escalated-heading" className="text-lg font-semibold">
          Escalated tasks <span className="text-slate-700">({data.escalated.length}{data.truncated ? "+" : ""})</span>
        </h2>
        <ul aria-label="What each decision means" className="space-y-0.5 text-sm text-slate-700">
          {(["requeue", "resolve", "cancel"] as const).map((d) => (
            <li key={d}>{decisions[d].meaning}</li>
          ))}
        </ul>
        <InboxToolbar
          queue={queue}
          queues={queues}
          onQueue={(next) => router.push(inboxHref(next, search, sort))}
          search={search}
          onSearch={(next) => {
            setSearch(next);
            setSelected(new Set());
          }}
          sort={sort}
          onSort={setSort}
          shown={shown.length}
          chosen={chosen.length}
          busy={bulk.isPending}
          onSelectAll={(on) => setSelected(on ? new Set(shown.map(({ task }) => task.id)) : new Set())}
          onDecide={(decision) =>
            chosen.length > 0
              ? decide(decision, chosen, "selected")
              : decide(decision, shown, search ? `matching “${search}”` : `shown${queue ? ` in queue ${queue}` : ""}`)
          }
        />
        {data.truncated ? (
          <p className="text-sm text-slate-700">Only the newest {data.escalated.length} escalated tasks are held here; search, groups and bulk actions apply to these.</p>
        ) : null}
        <ReasonGroups
          groups={groups}
          busy={bulk.isPending}
          onSelect={(group) => setSelected(new Set(group.items.map(({ task }) => task.id)))}
          onDecide={(decision, group) => decide(decision, group.items, groupScope(group))}
        />
        {data.escalated.length === 0 ? (
          <p className="text-sm text-slate-700" data-testid="inbox-empty">
            Nothing is escalated{queue ? ` in ${queue}` : ""}. A task comes here when it fails its last try or waits on one that was cancelled;
            until then there is nothing to decide. The work is on{" "}
            <Link href={queue ? `/?queue=${encodeURIComponent(queue)}` : "/"} className="text-blue-700 underline">
              the board
            </Link>
            .
          </p>
        ) : null}
        {data.escalated.length > 0 && shown.length === 0 ? <p className="text-sm text-slate-700">No escalated task matches “{search}”.</p> : null}
        <ul className="space-y-1.5" aria-label="Escalated tasks">
          {shown.map((item, index) => (
            <EscalatedTask
              key={item.task.id}
              item={item}
              now={now}
              selected={selected.has(item.task.id)}
              pending={pendingFor(item.task.id)}
              onSelect={(on, range) => select(index, on, range)}
              onDecide={(decision) => decide(decision, [item], "")}
              onRequeueTo={setMoving}
            />
          ))}
        </ul>
      </section>
      <Breakers breakers={data.breakers} />
      <DecisionDialog pending={confirming} onClose={() => setConfirming(null)} onConfirm={confirm} />
      {moving ? (
        <RequeueToDialog
          task={moving}
          queues={queues}
          onClose={() => setMoving(null)}
          onDone={(task) => {
            setMoving(null);
            dropFromInbox([task.id]);
          }}
        />
      ) : null}
    </div>
  );
}
