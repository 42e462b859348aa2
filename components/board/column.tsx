"use client";

import { useId } from "react";
import { orderFor, type ListFilter } from "@/components/task/filters";
import type { PageView, TaskView } from "@/components/task/wire";
import { useNow } from "@/components/realtime/clock";
import { useViewer } from "@/components/realtime/viewer";
import { availableActions } from "@/components/task/permissions";
import { useQueueRules } from "@/components/task/queue-rules";
import { Button } from "@/components/ui/button";
import { Count } from "./counts";
import { TaskCards } from "./task-card";
import { useReservedBy } from "@/components/task/reserved";
import { STATUS_TITLES, useTaskList } from "./use-task-list";

const SORT_WORDS = { priority: "claim order", created: "newest created first", updated: "recently changed first" } as const;

export function orderWords(filter: ListFilter): string {
  if (filter.sort) return SORT_WORDS[filter.sort];
  return orderFor(filter.status) === "priority" ? "claim order" : "newest first";
}

/**
 * The queued column puts what the viewer can work first — blocked, reserved, not-yet-due
 * and agents-only tasks after it, each part in the column's own order — reading the same
 * rule as the cards' Claim (availableActions), so the top card is the one Claim next takes.
 */
export function useWorkableFirst(): (tasks: TaskView[]) => TaskView[] {
  const viewer = useViewer();
  const rules = useQueueRules();
  const now = useNow(false) ?? 0;
  const reserved = useReservedBy();
  return (tasks) => {
    const can = (t: TaskView) => !reserved.has(t.id) && availableActions(t, viewer, now, rules.get(t.queue)).includes("claim");
    return [...tasks.filter(can), ...tasks.filter((t) => !can(t))];
  };
}

/** One status of the board, with its live count: the first page from the server, more on request (keyset). */
export function Column({ filter, initial, count, cap, sideways = false }: { filter: ListFilter; initial?: PageView<TaskView>; count?: number; cap: number; sideways?: boolean }) {
  const headingId = useId();
  // The server's first page is as old as the page. A column shown only while it has tasks
  // (awaiting input, in review) mounts when its count rises, long after the render whose
  // page was empty; taken as fresh (staleTime is infinite), that page showed "Nothing here."
  // under a count of 1 until a reload. A page that contradicts the count is not used.
  const page = initial && initial.items.length === 0 && (count ?? 0) > 0 ? undefined : initial;
  const { query, tasks } = useTaskList(filter, page);
  const workableFirst = useWorkableFirst();
  const title = STATUS_TITLES[filter.status];
  // Side by side, an empty column is only its heading (narrow), so the others get the room.
  const empty = query.isSuccess && tasks.length === 0;
  const width = !sideways ? "" : empty ? "w-36 flex-none" : "min-w-[14rem] flex-1 basis-0 snap-start";
  return (
    <section
      aria-labelledby={headingId}
      data-testid={`column-${filter.status}`}
      data-empty={empty || undefined}
      className={`flex min-w-0 flex-col rounded-lg bg-slate-100 p-1.5 ${width}`}
    >
      <h2 className="flex flex-wrap items-center gap-x-2 px-1 pb-1.5 text-sm font-semibold text-slate-700">
        <span id={headingId}>{title}</span>
        <Count count={count} cap={cap} testId={`count-${filter.status}`} />
        {empty ? null : <span className="ml-auto text-xs font-normal text-slate-600">{orderWords(filter)}</span>}
      </h2>
      {query.isPending ? <p className="px-1 text-sm text-slate-600">Loading…</p> : null}
      {query.isError ? <p className="px-1 text-sm text-red-700">Couldn&apos;t load these tasks.</p> : null}
      {query.isSuccess && tasks.length === 0 ? <p className="px-1 pb-1 text-sm text-slate-600">Nothing here.</p> : null}
      <TaskCards tasks={filter.status === "queued" ? workableFirst(tasks) : tasks} />
      {query.hasNextPage ? (
        <Button size="sm" tone="ghost" className="mt-1.5" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          {query.isFetchingNextPage ? "Loading…" : `More ${title.toLowerCase()} tasks`}
        </Button>
      ) : null}
    </section>
  );
}
