"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useId } from "react";
import { fetchTaskPage, taskKeys } from "@/components/task/api";
import { orderFor, type ListFilter } from "@/components/task/filters";
import type { PageView, TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { TaskCard } from "./task-card";

const titles: Record<ListFilter["status"], string> = {
  queued: "Queued",
  claimed: "Claimed",
  started: "Started",
  escalated: "Escalated",
  done: "Done",
  cancelled: "Cancelled",
};

/** One status of the board: the first page from the server, more on request (keyset). */
export function Column({ filter, initial }: { filter: ListFilter; initial?: PageView<TaskView> }) {
  const headingId = useId();
  const query = useInfiniteQuery({
    queryKey: taskKeys.list(filter),
    queryFn: ({ pageParam }) => fetchTaskPage(filter, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    ...(initial ? { initialData: { pages: [initial], pageParams: [null] } } : {}),
  });
  const tasks = query.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby={headingId} data-testid={`column-${filter.status}`} className="flex min-w-0 flex-col rounded-lg bg-slate-100 p-2">
      <h2 className="flex items-baseline justify-between px-1 pb-2 text-sm font-semibold text-slate-700">
        <span id={headingId}>{titles[filter.status]}</span>
        <span className="text-xs font-normal text-slate-500">
          {orderFor(filter.status) === "priority" ? "claim order" : "newest first"}
        </span>
      </h2>
      {query.isPending ? <p className="px-1 text-sm text-slate-500">Loading…</p> : null}
      {query.isError ? <p className="px-1 text-sm text-red-700">Couldn&apos;t load these tasks.</p> : null}
      {query.isSuccess && tasks.length === 0 ? <p className="px-1 pb-1 text-sm text-slate-500">Nothing here.</p> : null}
      <ul className="flex flex-col gap-2">
        {tasks.map((task) => (
          <li key={task.id}>
            <TaskCard task={task} />
          </li>
        ))}
      </ul>
      {query.hasNextPage ? (
        <Button size="sm" tone="ghost" className="mt-2" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          {query.isFetchingNextPage ? "Loading…" : `More ${titles[filter.status].toLowerCase()} tasks`}
        </Button>
      ) : null}
    </section>
  );
}
