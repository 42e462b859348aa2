"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { fetchTaskPage, taskKeys } from "@/components/task/api";
import type { ListFilter } from "@/components/task/filters";
import type { PageView, TaskView } from "@/components/task/wire";

/** One status's tasks, keyset-paginated: the first page from the server, more on request. */
export function useTaskList(filter: ListFilter, initial?: PageView<TaskView>) {
  const query = useInfiniteQuery({
    queryKey: taskKeys.list(filter),
    queryFn: ({ pageParam }) => fetchTaskPage(filter, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    ...(initial ? { initialData: { pages: [initial], pageParams: [null] } } : {}),
  });
  return { query, tasks: query.data?.pages.flatMap((page) => page.items) ?? [] };
}

export const STATUS_TITLES: Record<ListFilter["status"], string> = {
  queued: "Queued",
  claimed: "Claimed",
  started: "Started",
  in_review: "In review",
  awaiting_input: "Awaiting input",
  escalated: "Escalated",
  done: "Done",
  cancelled: "Cancelled",
};
