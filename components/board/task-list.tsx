"use client";

import Link from "next/link";
import type { ListFilter } from "@/components/task/filters";
import { ActorName, NeedsCheckBadge, PriorityBadge } from "@/components/task/badges";
import { BlockedBy, NotBefore } from "@/components/task/graph";
import { LeaseCountdown } from "@/components/task/lease";
import { TaskActions } from "@/components/task/task-actions";
import { HELD, type PageView, type TaskStatus, type TaskView } from "@/components/task/wire";
import { Button, focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import { orderWords, useWorkableFirst } from "./column";
import { countText } from "./counts";
import { CARD_ACTIONS, isSaved } from "./task-card";
import { STATUS_TITLES, useTaskList } from "./use-task-list";

/** One row: everything a card says, in one line a screen holds dozens of. */
function Row({ task }: { task: TaskView }) {
  return (
    <tr data-board-item data-task-id={task.id} data-testid={`row-${task.id}`} tabIndex={-1} className={`border-t border-slate-200 bg-white max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-1.5 max-sm:px-2 max-sm:py-1 ${focusRing} focus:outline-2 focus:outline-blue-600`}>
      <td className="px-2 py-1 text-xs text-slate-600 tabular-nums max-sm:p-0">{isSaved(task) ? `#${task.id}` : "new"}</td>
      <th scope="row" className="px-2 py-1 text-left font-medium wrap-anywhere max-sm:order-first max-sm:basis-full max-sm:p-0">
        {isSaved(task) ? (
          <Link href={`/tasks/${task.id}`} className={`rounded hover:underline max-sm:block max-sm:truncate ${focusRing}`}>
            {task.title}
          </Link>
        ) : (
          task.title
        )}
        {task.needsCheck ? <> <NeedsCheckBadge /></> : null}
        {/* mt-1.5: far enough below the title link that each keeps its 24 px target at phone width (WCAG 2.5.8). */}
        {task.blockedBy.length > 0 || task.notBefore ? (
          <span className="mt-1.5 flex flex-col text-xs font-normal text-amber-800">
            <BlockedBy ids={task.blockedBy} />
            <NotBefore iso={task.notBefore} />
          </span>
        ) : null}
      </th>
      <td className="px-2 py-1 max-sm:p-0"><PriorityBadge priority={task.priority} /></td>
      <td className="px-2 py-1 text-xs max-sm:max-w-[7rem] max-sm:truncate max-sm:p-0">{task.queue}</td>
      <td className="px-2 py-1 text-xs max-sm:p-0" data-testid="owner">
        {task.owner ? <ActorName actor={task.owner} /> : <span className="text-slate-600">nobody</span>}
        {HELD.includes(task.status) ? <> · <LeaseCountdown leaseUntil={task.leaseUntil} /></> : null}
      </td>
      <td className="px-2 py-1 text-xs whitespace-nowrap text-slate-600 max-sm:hidden"><LocalTime iso={task.updatedAt} relative /></td>
      <td className="px-2 py-1 max-sm:ml-auto max-sm:p-0" data-testid="row-actions"><TaskActions task={task} only={CARD_ACTIONS} size="sm" /></td>
    </tr>
  );
}

function Group({ filter, initial, count, cap }: { filter: ListFilter; initial?: PageView<TaskView>; count?: number; cap: number }) {
  const { query, tasks } = useTaskList(filter, initial);
  const workableFirst = useWorkableFirst();
  const title = STATUS_TITLES[filter.status];
  return (
    <tbody data-testid={`group-${filter.status}`} className="max-sm:block">
      <tr className="bg-slate-100 max-sm:block">
        <th colSpan={7} scope="rowgroup" className="px-2 py-1 text-left text-sm font-semibold text-slate-700">
          {title}{" "}
          {count !== undefined ? <span data-testid={`count-${filter.status}`} className="font-normal tabular-nums">({countText(count, cap)})</span> : null}
          <span className="ml-2 text-xs font-normal text-slate-600">{orderWords(filter)}</span>
        </th>
      </tr>
      {query.isSuccess && tasks.length === 0 ? (
        <tr><td colSpan={7} className="bg-white px-2 py-1 text-sm text-slate-600">Nothing here.</td></tr>
      ) : null}
      {(filter.status === "queued" ? workableFirst(tasks) : tasks).map((task) => <Row key={task.id} task={task} />)}
      {query.hasNextPage ? (
        <tr>
          <td colSpan={7} className="bg-white px-2 py-1">
            <Button size="sm" tone="ghost" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
              {query.isFetchingNextPage ? "Loading…" : `More ${title.toLowerCase()} tasks`}
            </Button>
          </td>
        </tr>
      ) : null}
    </tbody>
  );
}

/**
 * The dense view: one table, a group of rows per status (each its own live, keyset-paged
 * list, so optimistic actions and the stream work as on the columns).
 */
export function TaskList({
  columns,
  initial,
  counts,
  cap,
}: {
  columns: ListFilter[];
  initial: Partial<Record<TaskStatus, PageView<TaskView>>>;
  counts?: Record<TaskStatus, number>;
  cap: number;
}) {
  return (
    // relative: the scroller contains its absolutely placed sr-only text (else it widens the page).
    <div className="relative overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full text-sm max-sm:block sm:min-w-[48rem]" data-testid="task-list">
        <caption className="sr-only">Tasks, grouped by status</caption>
        <thead className="bg-slate-50 text-left text-xs text-slate-600 max-sm:hidden">
          <tr>
            <th scope="col" className="px-2 py-1 font-medium">Id</th>
            <th scope="col" className="px-2 py-1 font-medium">Task</th>
            <th scope="col" className="px-2 py-1 font-medium">Priority</th>
            <th scope="col" className="px-2 py-1 font-medium">Queue</th>
            <th scope="col" className="px-2 py-1 font-medium">Owner</th>
            <th scope="col" className="px-2 py-1 font-medium">Changed</th>
            <th scope="col" className="px-2 py-1 font-medium">Actions</th>
          </tr>
        </thead>
        {columns.map((filter) => (
          <Group key={filter.status} filter={filter} initial={initial[filter.status]} count={counts?.[filter.status]} cap={cap} />
        ))}
      </table>
    </div>
  );
}
