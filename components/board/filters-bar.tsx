"use client";

import { useRouter } from "next/navigation";
import { useOptimistic, useTransition } from "react";
import { boardSearch, type BoardFilters } from "@/components/task/filters";
import { STATUSES, type TaskStatus } from "@/components/task/wire";
import { focusRing } from "@/components/ui/button";
import { SelectField } from "@/components/ui/field";

function Toggle({ label, checked, onChange }: { label: string; checked: boolean; onChange: (value: boolean) => void }) {
  return (
    <label className="inline-flex items-center gap-2 self-end py-1.5 text-sm font-medium text-slate-700">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} className={`h-4 w-4 rounded ${focusRing}`} />
      {label}
    </label>
  );
}

/** The board's filters live in the URL, so a reload or a shared link shows the same board. */
export function FiltersBar({ filters, queues }: { filters: BoardFilters; queues: string[] }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  // The controls show the new choice at once; the board follows when the server answers.
  const [shown, show] = useOptimistic(filters);
  const set = (change: Partial<BoardFilters>) =>
    startTransition(() => {
      const next = { ...shown, ...change };
      show(next);
      router.replace(`/${boardSearch(next)}`, { scroll: false });
    });
  const queueOptions = shown.queue && !queues.includes(shown.queue) ? [...queues, shown.queue] : queues;
  return (
    <form role="search" aria-label="Filter tasks" aria-busy={pending} className="flex flex-wrap items-end gap-x-4 gap-y-2" onSubmit={(e) => e.preventDefault()}>
      <div className="w-40">
        <SelectField label="Queue" value={shown.queue ?? ""} onChange={(e) => set({ queue: e.target.value || undefined })}>
          <option value="">All queues</option>
          {queueOptions.map((queue) => (
            <option key={queue} value={queue}>
              {queue}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="w-36">
        <SelectField label="Status" value={shown.status ?? ""} onChange={(e) => set({ status: (e.target.value || undefined) as TaskStatus | undefined })}>
          <option value="">All statuses</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </SelectField>
      </div>
      <Toggle label="Mine" checked={shown.mine} onChange={(mine) => set({ mine })} />
      <Toggle label="Needs check" checked={shown.needsCheck} onChange={(needsCheck) => set({ needsCheck })} />
      {pending ? <span className="self-end py-1.5 text-xs text-slate-500">Updating…</span> : null}
    </form>
  );
}
