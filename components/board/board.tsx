"use client";

import { useState } from "react";
import type { CountsView } from "@/components/task/api";
import { boardColumns, isFiltered, listFilterOf, type BoardFilters, type BoardView } from "@/components/task/filters";
import type { PageView, TaskStatus, TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { ClaimNext } from "./claim-next";
import { Column } from "./column";
import { countText, useCounts } from "./counts";
import { CreateTask, type Refused } from "./create-task";
import { FiltersBar } from "./filters-bar";
import { BoardKeys } from "./keyboard";
import { MyTasksOnPhone } from "./my-tasks";
import { LapsedCount } from "./lapsed-count";
import { ReviewsWaiting } from "./reviews-waiting";
import { BrowserNotifications } from "@/components/notify/browser-notifications";
import { PausedQueues } from "./paused-queues";
import { useQueues } from "./queues";
import { TaskList } from "./task-list";

/**
 * The board: one column per status (or just the one filtered on) — or the same lists as
 * one dense table — each a keyset-paginated list kept fresh by the event stream, with live
 * counts. The first page of every list and the counts come from the server's render; the
 * filters, search, sort and view live in the URL.
 */
const WHEN_USED: TaskStatus[] = ["awaiting_input", "in_review"];

export function Board({
  filters,
  view,
  actorId,
  initial,
  initialCounts,
  queues: initialQueues,
}: {
  filters: BoardFilters;
  view: BoardView;
  actorId: string;
  initial: Partial<Record<TaskStatus, PageView<TaskView>>>;
  initialCounts?: CountsView;
  queues: string[];
}) {
  const queues = useQueues(initialQueues);
  const [creating, setCreating] = useState(false);
  // A create the server refused after the form closed: the form opens again with it.
  const [refused, setRefused] = useState<Refused | null>(null);
  const claimQueue = filters.queue ?? "default";
  const { sort: _sort, ...countFilter } = listFilterOf(filters);
  const counts = useCounts(countFilter, initialCounts);
  // A question or a review is a column only while a task waits in it (or it is the filter):
  // most queues never use them, and two empty columns would take the room of the worked ones.
  const columns = boardColumns(filters).filter(
    (c) => !WHEN_USED.includes(c.status) || filters.status === c.status || (counts?.statuses[c.status] ?? 0) > 0,
  );
  const cap = counts?.cap ?? 1000;
  const total = counts ? columns.reduce((n, c) => n + counts.statuses[c.status], 0) : undefined;
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-start gap-2 lg:flex-nowrap">
        <FiltersBar filters={filters} view={view} actorId={actorId} queues={queues} counts={counts} />
        <div className="flex min-w-0 flex-wrap items-center gap-2 lg:flex-none">
          <BoardKeys />
          <ClaimNext columns={columns} {...(filters.queue ? { queue: filters.queue } : {})} />
          <Button aria-expanded={creating} aria-controls="new-task" onClick={() => {
            // Closed by hand, a refused create is let go: "New task" opens an empty form again.
            setCreating(!creating);
            setRefused(null);
          }}>
            {creating ? "Close" : "New task"}
          </Button>
        </div>
      </div>
      {total !== undefined && (isFiltered(filters) || filters.queue || filters.status) ? (
        <p aria-live="polite" data-testid="filter-count" className="text-sm text-slate-700">
          {countText(total, cap)} {total === 1 ? "task matches" : "tasks match"}
          {filters.q ? <> &ldquo;{filters.q}&rdquo;</> : null}
        </p>
      ) : null}
      <PausedQueues />
      <LapsedCount />
      <ReviewsWaiting />
      <BrowserNotifications />
      {total === 0 ? (
        isFiltered(filters) || filters.status ? (
          <EmptyState testId="board-empty" action={{ label: "Clear filters", href: filters.queue ? `/?queue=${encodeURIComponent(filters.queue)}` : "/" }}>
            No task matches these filters{filters.queue ? ` in ${filters.queue}` : ""}. Clear them to see the whole {filters.queue ? "queue" : "board"}.
          </EmptyState>
        ) : (
          <EmptyState testId="board-empty" action={{ label: "Create a task", onClick: () => setCreating(true) }}>
            {filters.queue ? `Queue ${filters.queue} has no tasks yet.` : "The board is empty: nothing to claim yet."} Create the first task here, or let an agent add them through the API.
          </EmptyState>
        )
      ) : null}
      <div id="new-task" hidden={!creating}>
        {creating ? (
          <CreateTask
            defaultQueue={claimQueue}
            queues={queues}
            refused={refused}
            onCreated={() => {
              setCreating(false);
              setRefused(null);
            }}
            onRefused={(back) => {
              setRefused(back);
              setCreating(true);
            }}
          />
        ) : null}
      </div>
      {view === "columns" && !filters.mine ? <MyTasksOnPhone shared={listFilterOf(filters)} /> : null}
      {view === "list" ? (
        <TaskList columns={columns} initial={initial} counts={counts?.statuses} cap={cap} />
      ) : (
        // Side by side at every width, scrolling sideways inside the board (never the page):
        // each column as tall as its cards, an empty one collapsed to its heading.
        <div
          className={columns.length === 1 ? "grid max-w-3xl gap-2" : "relative flex snap-x items-start gap-2 overflow-x-auto pb-2"}
          data-testid="board"
        >
          {columns.map((filter) => (
            <Column
              key={filter.status}
              filter={filter}
              initial={initial[filter.status]}
              count={counts?.statuses[filter.status]}
              cap={cap}
              sideways={columns.length > 1}
            />
          ))}
        </div>
      )}
    </div>
  );
}
