"use client";

import { useRouter } from "next/navigation";
import { useCallback, useOptimistic, useTransition } from "react";
import type { CountsView } from "@/components/task/api";
import { boardSearch, SORTS, type AgeFilter, type BoardFilters, type BoardView, type PriorityFilter } from "@/components/task/filters";
import { STATUSES, type TaskStatus } from "@/components/task/wire";
import { focusRing } from "@/components/ui/button";
import { SelectField } from "@/components/ui/field";
import { countText } from "./counts";
import { SearchBox } from "./search-box";
import { ViewToggle } from "./view-toggle";

function Toggle({ label, checked, onChange }: { label: string; checked: boolean; onChange: (value: boolean) => void }) {
  return (
    <label className="inline-flex items-center gap-2 self-end py-1.5 text-sm font-medium text-slate-700">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} className={`h-4 w-4 rounded ${focusRing}`} />
      {label}
    </label>
  );
}

const OPEN: TaskStatus[] = ["queued", "claimed", "started", "in_review", "escalated"];
const SORT_LABELS = { priority: "Claim order", created: "Newest", updated: "Recently changed" } as const;

/**
 * The board's filters live in the URL, so a reload or a shared link shows the same board,
 * and each change is a history entry (Back undoes it). The search replaces its entry
 * instead: one per pause in typing would bury the filters under keystrokes.
 */
export function FiltersBar({
  filters,
  view,
  actorId,
  queues,
  counts,
}: {
  filters: BoardFilters;
  /** The view shown (the URL's, or the one remembered). */
  view: BoardView;
  actorId: string;
  queues: string[];
  counts?: CountsView;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  // The controls show the new choice at once; the board follows when the server answers.
  const [shown, show] = useOptimistic(filters);
  const set = (change: Partial<BoardFilters>, replace = false) =>
    startTransition(() => {
      const next = { ...shown, ...change };
      show(next);
      const href = `/${boardSearch(next)}`;
      if (replace) router.replace(href, { scroll: false });
      else router.push(href, { scroll: false });
    });
  // Every change starts from what the controls show, so quick changes in a row (before
  // the server has answered the first) all stay in the URL.
  const onSearch = useCallback(
    (q: string) =>
      startTransition(() => {
        const next = { ...shown, q: q || undefined };
        show(next);
        router.replace(`/${boardSearch(next)}`, { scroll: false });
      }),
    [shown, show, router],
  );
  const queueOptions = shown.queue && !queues.includes(shown.queue) ? [...queues, shown.queue] : queues;
  const open = (queue: string) => {
    const row = counts?.queues.find((q) => q.queue === queue);
    return row ? OPEN.reduce((n, s) => n + row.statuses[s], 0) : undefined;
  };
  const owner = shown.mine ? "me" : shown.unowned ? "none" : "";
  return (
    <form role="search" aria-label="Filter tasks" aria-busy={pending} className="flex flex-wrap items-end gap-x-3 gap-y-2" onSubmit={(e) => e.preventDefault()}>
      <SearchBox value={filters.q ?? ""} onSearch={onSearch} />
      <div className="w-40">
        <SelectField label="Queue" value={shown.queue ?? ""} onChange={(e) => set({ queue: e.target.value || undefined })}>
          <option value="">All queues</option>
          {queueOptions.map((queue) => {
            const n = open(queue);
            return (
              <option key={queue} value={queue}>
                {n === undefined ? queue : `${queue} (${countText(n, counts!.cap)} open)`}
              </option>
            );
          })}
        </SelectField>
      </div>
      <div className="w-32">
        <SelectField label="Status" value={shown.status ?? ""} onChange={(e) => set({ status: (e.target.value || undefined) as TaskStatus | undefined })}>
          <option value="">All statuses</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="w-28">
        <SelectField label="Owner" value={owner} onChange={(e) => set({ mine: e.target.value === "me", unowned: e.target.value === "none" })}>
          <option value="">Anyone</option>
          <option value="me">Me</option>
          <option value="none">Nobody</option>
        </SelectField>
      </div>
      <div className="w-36">
        <SelectField label="Priority" value={shown.priority ?? ""} onChange={(e) => set({ priority: (e.target.value || undefined) as PriorityFilter | undefined })}>
          <option value="">Any priority</option>
          <option value="raised">↑ Above normal (1+)</option>
          <option value="high">↑ High (5+)</option>
        </SelectField>
      </div>
      <div className="w-32">
        <SelectField label="Age" value={shown.age ?? ""} onChange={(e) => set({ age: (e.target.value || undefined) as AgeFilter | undefined })}>
          <option value="">Any age</option>
          <option value="1h">Over an hour</option>
          <option value="1d">Over a day</option>
          <option value="1w">Over a week</option>
        </SelectField>
      </div>
      <div className="w-40">
        <SelectField label="Sort" value={shown.sort ?? ""} onChange={(e) => set({ sort: (e.target.value || undefined) as BoardFilters["sort"] })}>
          <option value="">Column default</option>
          {SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </SelectField>
      </div>
      <Toggle label="Mine" checked={shown.mine} onChange={(mine) => set({ mine, unowned: false })} />
      <Toggle label="Needs check" checked={shown.needsCheck} onChange={(needsCheck) => set({ needsCheck })} />
      <ViewToggle view={shown.view ?? view} actorId={actorId} onChoose={(next) => set({ view: next })} />
      {pending ? <span className="self-end py-1.5 text-xs text-slate-600">Updating…</span> : null}
    </form>
  );
}
