"use client";

import { useState } from "react";
import { boardColumns, type BoardFilters } from "@/components/task/filters";
import type { PageView, TaskStatus, TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { ClaimNext } from "./claim-next";
import { Column } from "./column";
import { CreateTask } from "./create-task";
import { FiltersBar } from "./filters-bar";
import { PausedQueues } from "./paused-queues";
import { useQueues } from "./queues";

/**
 * The board: one column per status (or just the one filtered on), each a keyset-paginated
 * list kept fresh by the event stream. The first page of every column comes from the
 * server's render; filters live in the URL.
 */
export function Board({
  filters,
  initial,
  queues: initialQueues,
}: {
  filters: BoardFilters;
  initial: Partial<Record<TaskStatus, PageView<TaskView>>>;
  queues: string[];
}) {
  const queues = useQueues(initialQueues);
  const [creating, setCreating] = useState(false);
  const claimQueue = filters.queue ?? "default";
  const columns = boardColumns(filters);
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <FiltersBar filters={filters} queues={queues} />
        <div className="flex flex-wrap gap-2">
          <ClaimNext queue={claimQueue} />
          <Button aria-expanded={creating} aria-controls="new-task" onClick={() => setCreating(!creating)}>
            {creating ? "Close" : "New task"}
          </Button>
        </div>
      </div>
      <PausedQueues />
      <div id="new-task" hidden={!creating}>
        {creating ? <CreateTask defaultQueue={claimQueue} queues={queues} onCreated={() => setCreating(false)} /> : null}
      </div>
      <div
        className={`grid gap-3 ${columns.length === 1 ? "max-w-3xl" : "sm:grid-cols-2 lg:grid-cols-3 2xl:grid-cols-6"}`}
        data-testid="board"
      >
        {columns.map((filter) => (
          <Column key={filter.status} filter={filter} initial={initial[filter.status]} />
        ))}
      </div>
    </div>
  );
}
