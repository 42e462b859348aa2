"use client";

import { useQueryClient, type InfiniteData } from "@tanstack/react-query";
import Link from "next/link";
import { serverNow } from "@/components/realtime/clock";
import { useViewer } from "@/components/realtime/viewer";
import { taskKeys } from "@/components/task/api";
import type { ListFilter } from "@/components/task/filters";
import { useTaskMutation } from "@/components/task/mutations";
import { availableActions } from "@/components/task/permissions";
import { peopleExcluded, useQueueRules } from "@/components/task/queue-rules";
import type { PageView, TaskView, Viewer } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { useToast } from "@/components/ui/toaster";
import type { QueueRules } from "@/lib/tasks";
import { CLAIMABLE, HELD } from "@/lib/tasks/model";
import { useReservedBy } from "@/components/task/reserved";

/** Where a claim can come from, in the order the board shows them: the queue, then lapsed holdings. */
const CLAIM_FROM = [...CLAIMABLE, ...HELD];

/**
 * The top card of the view the person can claim: the lists on screen (the same cached
 * queries the columns and the list draw), in their order, the first whose Claim the card
 * itself would offer — availableActions, the machine's rule, and the engine's reservation
 * waits, so a blocked, reserved or agents-only task is stepped over exactly as its card shows no Claim. Not the viewer's own lapsed task.
 */
export function topClaimable(
  lists: { filter: ListFilter; tasks: TaskView[] }[], viewer: Viewer, now: number, rules: Map<string, QueueRules>, reserved: ReadonlyMap<string, unknown> = new Map(),
): TaskView | null {
  for (const status of CLAIM_FROM) {
    for (const { tasks } of lists.filter((l) => l.filter.status === status)) {
      const task = tasks.find((t) => t.owner?.id !== viewer.actorId && !reserved.has(t.id) && availableActions(t, viewer, now, rules.get(t.queue)).includes("claim"));
      if (task) return task;
    }
  }
  return null;
}

/**
 * Claim next: the top claimable card of the view the person is looking at (its filters and
 * sort), claimed as its own Claim button would — optimistically, fenced by its version, so
 * a card someone took meanwhile gets the usual sentence saying who.
 */
export function ClaimNext({ columns, queue }: { columns: ListFilter[]; queue?: string }) {
  const client = useQueryClient();
  const viewer = useViewer();
  const rules = useQueueRules();
  const reserved = useReservedBy();
  const { notify } = useToast();
  const mutation = useTaskMutation({
    onDone: (_call, task) =>
      notify(
        "info",
        <>
          You claimed{" "}
          <Link className="font-medium underline" href={`/tasks/${task.id}`}>
            {task.title}
          </Link>
          .
        </>,
      ),
  });
  const claim = () => {
    const lists = columns.map((filter) => ({
      filter,
      tasks: client.getQueryData<InfiniteData<PageView<TaskView>>>(taskKeys.list(filter))?.pages.flatMap((p) => p.items) ?? [],
    }));
    const task = topClaimable(lists, viewer, serverNow(), rules, reserved);
    if (!task) return notify("info", `Nothing on this board${queue ? ` in ${queue}` : ""} that you can claim right now.`);
    mutation.mutate({ action: "claim", task });
  };
  // An agents-only queue: no Claim button for people, and a sentence saying why.
  const excluded = queue ? peopleExcluded(rules.get(queue)) : null;
  if (excluded) return <p data-testid="claim-next-excluded" className="max-w-xs text-sm text-slate-600">{excluded}</p>;
  return (
    <Button tone="primary" disabled={mutation.isPending} onClick={claim}>
      {mutation.isPending ? "Claiming…" : queue ? `Claim next in ${queue}` : "Claim next"}
    </Button>
  );
}
