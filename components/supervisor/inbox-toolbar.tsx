"use client";

import { useEffect, useRef } from "react";
import { Button, focusRing } from "@/components/ui/button";
import { SelectField, TextField } from "@/components/ui/field";
import { decisions, DECISIONS } from "./decisions";
import type { InboxDecision } from "./escalated-task";
import { INBOX_SORTS, type InboxSort } from "./inbox-view";
import { LIMITS } from "@/lib/limits";

/**
 * Search, queue, sort, the select-all box and the decisions for the selection — or, with
 * nothing selected, for every task the search matches ("Requeue all 12 matching").
 */
export function InboxToolbar(props: {
  queue: string | null;
  queues: string[];
  onQueue: (queue: string | null) => void;
  search: string;
  onSearch: (search: string) => void;
  sort: InboxSort;
  onSort: (sort: InboxSort) => void;
  shown: number;
  chosen: number;
  busy: boolean;
  onSelectAll: (on: boolean) => void;
  onDecide: (decision: InboxDecision) => void;
}) {
  const { shown, chosen } = props;
  const all = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (all.current) all.current.indeterminate = chosen > 0 && chosen < shown;
  }, [chosen, shown]);
  const target = chosen > 0 ? `${chosen} selected` : `all ${shown} matching`;
  return (
    <div className="space-y-3 rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_12rem_14rem]">
        <TextField
          type="search"
          label="Search escalated tasks"
          hint="Title, description, payload or failure reason"
          value={props.search}
          maxLength={LIMITS.search}
          onChange={(e) => props.onSearch(e.target.value)}
        />
        <SelectField label="Queue" value={props.queue ?? ""} onChange={(e) => props.onQueue(e.target.value || null)}>
          <option value="">All queues</option>
          {props.queues.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Sort" value={props.sort} onChange={(e) => props.onSort(e.target.value as InboxSort)}>
          {(Object.keys(INBOX_SORTS) as InboxSort[]).map((sort) => (
            <option key={sort} value={sort}>
              {INBOX_SORTS[sort]}
            </option>
          ))}
        </SelectField>
      </div>
      <div role="group" aria-label="Decide for many" className="flex flex-wrap items-center gap-2">
        <label className="mr-2 inline-flex items-center gap-2 text-sm font-medium">
          <input
            ref={all}
            type="checkbox"
            className={`size-4 accent-blue-700 ${focusRing}`}
            checked={shown > 0 && chosen === shown}
            disabled={shown === 0}
            onChange={(e) => props.onSelectAll(e.target.checked)}
          />
          Select all {shown}
        </label>
        <span className="text-sm text-slate-700" aria-live="polite" data-testid="selection-count">
          {chosen} selected
        </span>
        {DECISIONS.map((decision) => (
          <Button
            key={decision}
            size="sm"
            tone={decision === "cancel" ? "danger" : "secondary"}
            disabled={shown === 0 || props.busy}
            onClick={() => props.onDecide(decision)}
          >
            {decisions[decision].label} {target}
          </Button>
        ))}
        {props.busy ? <span role="status" className="text-sm text-slate-700">Working…</span> : null}
      </div>
    </div>
  );
}
