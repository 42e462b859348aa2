"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useOptimistic, useRef, useState, useTransition, type ReactNode, type SelectHTMLAttributes } from "react";
import type { CountsView } from "@/components/task/api";
import { boardSearch, minPriorityOf, SORTS, type AgeFilter, type BoardFilters, type BoardView, type PriorityFilter } from "@/components/task/filters";
import { STATUSES, type TaskStatus } from "@/components/task/wire";
import { focusRing } from "@/components/ui/button";
import { countText } from "./counts";
import { activeTokens, type FilterChange } from "./query";
import { SearchBox } from "./search-box";
import { ViewToggle } from "./view-toggle";

const OPEN: TaskStatus[] = ["queued", "claimed", "started", "awaiting_input", "in_review", "escalated"];
const SORT_LABELS = { priority: "Claim order", created: "Newest", updated: "Changed" } as const;

const chip = (active: boolean) =>
  `rounded-full border py-1 pr-7 pl-3 text-sm ${active ? "border-blue-700 bg-blue-50 font-medium text-blue-950" : "border-slate-300 bg-white text-slate-800"} ${focusRing}`;

/** A filter as a chip: a select whose empty choice is its own name. */
function Chip({ label, active, children, ...props }: SelectHTMLAttributes<HTMLSelectElement> & { label: string; active: boolean; children: ReactNode }) {
  // A select is as wide as its longest choice; a chip is as wide as what it shows
  // (field-sizing: its name, or the choice made). Fixed widths cut the names ("St…", "O…"):
  // the native arrow takes its room inside the padding, and fonts differ by machine.
  return (
    <select aria-label={label} className={`${chip(active)} [field-sizing:content] sm:max-w-60`} {...props}>
      {children}
    </select>
  );
}

/**
 * The board's filters, in one row: the query box (free words search; `status:queued
 * queue:triage priority:>5` filter), a chip per filter, and the active filters as pills
 * that remove themselves. They live in the URL, so a reload or a shared link shows the
 * same board, and each change is a history entry (Back undoes it). The search replaces
 * its entry instead: one per pause in typing would bury the filters under keystrokes.
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
  const set = useCallback(
    (change: FilterChange, replace = false) =>
      startTransition(() => {
        const next = { ...shown, ...change };
        show(next);
        const href = `/${boardSearch(next)}`;
        if (replace) router.replace(href, { scroll: false });
        else router.push(href, { scroll: false });
      }),
    [shown, show, router],
  );
  // Every change starts from what the controls show, so quick changes in a row (before
  // the server has answered the first) all stay in the URL.
  const onSearch = useCallback((q: string) => set({ q: q || undefined }, true), [set]);
  const queueOptions = shown.queue && !queues.includes(shown.queue) ? [...queues, shown.queue] : queues;
  const open = (queue: string) => {
    const row = counts?.queues.find((q) => q.queue === queue);
    return row ? OPEN.reduce((n, s) => n + row.statuses[s], 0) : undefined;
  };
  const owner = shown.mine ? "me" : shown.unowned ? "none" : "";
  const pills = activeTokens(shown);
  // On a phone the chips live in a sheet the Filters button opens; the pills stay in view.
  const [sheet, setSheet] = useState(false);
  const sheetRef = useRef<HTMLDivElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!sheet) return;
    sheetRef.current?.querySelector<HTMLElement>("select, input")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setSheet(false);
        opener.current?.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [sheet]);
  const closeSheet = () => {
    setSheet(false);
    opener.current?.focus();
  };
  const named = shown.priority === undefined || shown.priority === "raised" || shown.priority === "high";
  return (
    <form role="search" aria-label="Filter tasks" aria-busy={pending} className="flex min-w-0 flex-1 basis-full flex-wrap items-center gap-x-2 gap-y-1.5 lg:basis-0" onSubmit={(e) => e.preventDefault()}>
      <SearchBox value={filters.q ?? ""} queues={queues} onSearch={onSearch} onFilter={(change) => set(change)} />
      <button
        ref={opener}
        type="button"
        aria-expanded={sheet}
        aria-controls="board-filters"
        onClick={() => setSheet(true)}
        className={`${chip(pills.length > 0).replace("pr-7", "pr-3")} sm:hidden`}
      >
        Filters{pills.length > 0 ? ` (${pills.length})` : ""}
      </button>
      {sheet ? <div aria-hidden className="fixed inset-0 z-30 bg-slate-900/40 sm:hidden" onClick={closeSheet} /> : null}
      <div
        id="board-filters"
        ref={sheetRef}
        {...(sheet ? { role: "dialog", "aria-modal": true, "aria-labelledby": "board-filters-title" } : {})}
        data-open={sheet || undefined}
        className={
          sheet
            ? "fixed inset-x-0 bottom-0 z-40 flex max-h-[85vh] flex-col gap-2 overflow-y-auto rounded-t-xl bg-white p-4 shadow-xl sm:static sm:z-auto sm:flex-row sm:flex-wrap sm:items-center sm:gap-x-2 sm:gap-y-1.5 sm:rounded-none sm:bg-transparent sm:p-0 sm:shadow-none [&>select]:py-2 sm:[&>select]:py-1"
            : "hidden sm:contents"
        }
      >
        {sheet ? (
          <div className="flex items-center justify-between sm:hidden">
            <h2 id="board-filters-title" className="text-base font-semibold">Filters</h2>
            <button type="button" onClick={closeSheet} className={`rounded-md bg-blue-700 px-3 py-1.5 text-sm font-medium text-white ${focusRing}`}>
              Done
            </button>
          </div>
        ) : null}
        <Chip label="Queue" active={!!shown.queue} value={shown.queue ?? ""} onChange={(e) => set({ queue: e.target.value || undefined })}>
          <option value="">Queue</option>
          {queueOptions.map((queue) => {
            const n = open(queue);
            return (
              <option key={queue} value={queue}>
                {n === undefined ? queue : `${queue} (${countText(n, counts!.cap)} open)`}
              </option>
            );
          })}
        </Chip>
        <Chip label="Status" active={!!shown.status} value={shown.status ?? ""} onChange={(e) => set({ status: (e.target.value || undefined) as TaskStatus | undefined })}>
          <option value="">Status</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </Chip>
        <Chip label="Owner" active={!!owner} value={owner} onChange={(e) => set({ mine: e.target.value === "me", unowned: e.target.value === "none" })}>
          <option value="">Owner</option>
          <option value="me">Owner: me</option>
          <option value="none">Owner: nobody</option>
        </Chip>
        <Chip label="Priority" active={!!shown.priority} value={shown.priority ?? ""} onChange={(e) => set({ priority: (e.target.value || undefined) as PriorityFilter | undefined })}>
          <option value="">Priority</option>
          <option value="raised">↑ 1+ (raised)</option>
          <option value="high">↑ 5+ (high)</option>
          {named ? null : <option value={shown.priority}>Priority {minPriorityOf(shown.priority!)}+</option>}
        </Chip>
        <Chip label="Age" active={!!shown.age} value={shown.age ?? ""} onChange={(e) => set({ age: (e.target.value || undefined) as AgeFilter | undefined })}>
          <option value="">Age</option>
          <option value="1h">Age: 1h+</option>
          <option value="1d">Age: 1d+</option>
          <option value="1w">Age: 1w+</option>
        </Chip>
        <Chip label="Sort" active={!!shown.sort} value={shown.sort ?? ""} onChange={(e) => set({ sort: (e.target.value || undefined) as BoardFilters["sort"] })}>
          <option value="">Sort</option>
          {SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </Chip>
        <label className={`inline-flex cursor-pointer items-center gap-1.5 ${chip(shown.needsCheck).replace("pr-7", "pr-3")} whitespace-nowrap has-focus-visible:outline-2 has-focus-visible:outline-blue-600`}>
          <input type="checkbox" checked={shown.needsCheck} onChange={(e) => set({ needsCheck: e.target.checked })} className="h-3.5 w-3.5 rounded" />
          Needs check
        </label>
        <ViewToggle view={shown.view ?? view} actorId={actorId} onChoose={(next) => set({ view: next })} />
      </div>
      {pills.length > 0 ? (
        <ul aria-label="Active filters" className="flex w-full flex-wrap items-center gap-1.5 sm:w-auto" data-testid="filter-pills">
          {pills.map((pill) => (
            <li key={pill.key}>
              <button
                type="button"
                onClick={() => set(pill.clear)}
                className={`inline-flex items-center gap-1 rounded-full bg-blue-700 py-0.5 pr-1.5 pl-2.5 font-mono text-xs text-white hover:bg-blue-800 ${focusRing}`}
              >
                <span className="sr-only">Remove filter </span>
                {pill.text}
                <span aria-hidden className="text-sm leading-none">×</span>
              </button>
            </li>
          ))}
          {pills.length > 1 ? (
            <li>
              <button
                type="button"
                onClick={() => set({ status: undefined, queue: undefined, mine: false, unowned: false, priority: undefined, age: undefined, sort: undefined, needsCheck: false })}
                className={`rounded px-1 text-xs text-blue-800 underline ${focusRing}`}
              >
                Clear filters
              </button>
            </li>
          ) : null}
        </ul>
      ) : null}
      {pending ? <span className="text-xs text-slate-600">Updating…</span> : null}
    </form>
  );
}
