"use client";

import { useId } from "react";
import { orderFor, type ListFilter } from "@/components/task/filters";
import type { PageView, TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { Count } from "./counts";
import { TaskCards } from "./task-card";
import { STATUS_TITLES, useTaskList } from "./use-task-list";

const SORT_WORDS = { priority: "claim order", created: "newest created first", updated: "recently changed first" } as const;

export function orderWords(filter: ListFilter): string {
  if (filter.sort) return SORT_WORDS[filter.sort];
  return orderFor(filter.status) === "priority" ? "claim order" : "newest first";
}

/** One status of the board, with its live count: the first page from the server, more on request (keyset). */
export function Column({ filter, initial, count, cap }: { filter: ListFilter; initial?: PageView<TaskView>; count?: number; cap: number }) {
  const headingId = useId();
  const { query, tasks } = useTaskList(filter, initial);
  const title = STATUS_TITLES[filter.status];
  return (
    <section aria-labelledby={headingId} data-testid={`column-${filter.status}`} className="flex min-w-0 flex-col rounded-lg bg-slate-100 p-1.5">
      <h2 className="flex items-center gap-2 px-1 pb-1.5 text-sm font-semibold text-slate-700">
        <span id={headingId}>{title}</span>
        <Count count={count} cap={cap} testId={`count-${filter.status}`} />
        <span className="ml-auto text-xs font-normal text-slate-600">{orderWords(filter)}</span>
      </h2>
      {query.isPending ? <p className="px-1 text-sm text-slate-600">Loading…</p> : null}
      {query.isError ? <p className="px-1 text-sm text-red-700">Couldn&apos;t load these tasks.</p> : null}
      {query.isSuccess && tasks.length === 0 ? <p className="px-1 pb-1 text-sm text-slate-600">Nothing here.</p> : null}
      <TaskCards tasks={tasks} />
      {query.hasNextPage ? (
        <Button size="sm" tone="ghost" className="mt-1.5" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          {query.isFetchingNextPage ? "Loading…" : `More ${title.toLowerCase()} tasks`}
        </Button>
      ) : null}
    </section>
  );
}
