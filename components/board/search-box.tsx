"use client";

import { useEffect, useId, useRef, useState } from "react";
import type { BoardFilters } from "@/components/task/filters";
import { focusRing } from "@/components/ui/button";
import { LIMITS } from "@/lib/limits";
import { SEARCH_ID } from "./keyboard";
import { parseQuery, type FilterChange } from "./query";

/**
 * The board's query box: free words are the API's `q` (title, description and payload; the
 * last word a prefix), sent a moment after typing stops; a finished `key:value` word
 * (`status:queued queue:triage priority:>5`) becomes a filter — it leaves the box and shows
 * as a pill. What the URL says wins when it changes from elsewhere (Back, a shared link);
 * while someone types, their text does.
 */
export function SearchBox({
  value,
  queues,
  onSearch,
  onFilter,
}: {
  value: string;
  queues: readonly string[];
  /** Only the words changed: replaces the history entry. */
  onSearch: (q: string) => void;
  /** Filters (and the words) changed: a history entry of its own. */
  onFilter: (change: FilterChange & Pick<BoardFilters, "q">) => void;
}) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  const [errors, setErrors] = useState<string[]>([]);
  const [sent, setSent] = useState(value);
  const errorId = useId();
  const hintId = useId();
  if (value !== seen) {
    // Adjusting state while rendering (React's pattern for "reset on a prop change").
    setSeen(value);
    if (value !== sent) {
      setSent(value);
      setText(value);
      setErrors([]);
    }
  }
  // The text a final read (Enter, leaving the box) settled: the pause after typing it must
  // not read it again as unfinished (and take its sentence away).
  const settled = useRef<string | null>(null);
  const apply = (current: string, final: boolean) => {
    if (!final && settled.current === current) return;
    settled.current = final ? current : null;
    const parsed = parseQuery(current, queues, final);
    setErrors(parsed.errors);
    const q = parsed.q.trim();
    if (Object.keys(parsed.change).length > 0) {
      setSent(q);
      setText(parsed.rest);
      if (final) settled.current = parsed.rest;
      onFilter({ ...parsed.change, q: q || undefined });
    } else if (q !== sent.trim()) {
      setSent(q);
      onSearch(q);
    }
  };
  const latest = useRef(apply);
  useEffect(() => {
    latest.current = apply;
  });
  useEffect(() => {
    const timer = setTimeout(() => latest.current(text, false), 250);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <div className="relative min-w-0 flex-1 sm:w-60 sm:flex-none lg:w-auto lg:max-w-80 lg:min-w-40 lg:flex-1">
      <label htmlFor={SEARCH_ID} className="sr-only">
        Search or filter
      </label>
      <span id={hintId} className="sr-only">
        Free words search titles, descriptions and payloads; words such as status:queued, queue:triage or priority:&gt;5 filter.
      </span>
      <input
        id={SEARCH_ID}
        type="search"
        value={text}
        maxLength={LIMITS.search + 200}
        placeholder="Search, or status:queued priority:>5 …"
        aria-keyshortcuts="/"
        aria-invalid={errors.length > 0 || undefined}
        aria-describedby={errors.length > 0 ? `${errorId} ${hintId}` : hintId}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            apply(e.currentTarget.value, true);
          }
          if (e.key === "Escape") e.currentTarget.blur();
        }}
        onBlur={(e) => apply(e.currentTarget.value, true)}
        className={`block w-full rounded-full border border-slate-300 bg-white py-1 pr-8 pl-3 text-sm text-slate-900 ${focusRing}`}
      />
      <kbd aria-hidden className="pointer-events-none absolute top-1.5 right-3 rounded border border-slate-300 px-1 text-xs text-slate-600">/</kbd>
      {errors.length > 0 ? (
        <p id={errorId} role="alert" data-testid="query-error" className="absolute top-full left-0 z-20 mt-1 w-full rounded-md border border-red-300 bg-red-50 px-2 py-1 text-xs text-red-900 shadow sm:w-[28rem]">
          {errors.join(" ")}
        </p>
      ) : null}
    </div>
  );
}
