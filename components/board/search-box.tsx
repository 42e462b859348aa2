"use client";

import { useEffect, useState } from "react";
import { controlClass } from "@/components/ui/field";
import { SEARCH_ID } from "./keyboard";
import { LIMITS } from "@/lib/limits";

/**
 * The board's search box: the API's `q` (title, description and payload; the last word a
 * prefix), sent a moment after typing stops. What the URL says wins when it changes from
 * elsewhere (back button, a shared link); while someone types, their text does.
 */
export function SearchBox({ value, onSearch }: { value: string; onSearch: (q: string) => void }) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  const [sent, setSent] = useState(value);
  if (value !== seen) {
    // Adjusting state while rendering (React's pattern for "reset on a prop change").
    setSeen(value);
    if (value !== sent) {
      setText(value);
      setSent(value);
    }
  }
  useEffect(() => {
    if (text.trim() === sent.trim()) return;
    const timer = setTimeout(() => {
      setSent(text);
      onSearch(text.trim());
    }, 250);
    return () => clearTimeout(timer);
  }, [text, sent, onSearch]);
  return (
    <div className="flex w-full flex-col gap-1 sm:w-64">
      <label htmlFor={SEARCH_ID} className="text-sm font-medium text-slate-700">
        Search <kbd className="ml-1 rounded border border-slate-300 px-1 text-xs font-normal text-slate-600">/</kbd>
      </label>
      <input
        id={SEARCH_ID}
        type="search"
        value={text}
        maxLength={LIMITS.search}
        placeholder="Title, description or payload"
        aria-keyshortcuts="/"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") e.currentTarget.blur();
        }}
        className={controlClass}
      />
    </div>
  );
}
