"use client";

import { Button } from "@/components/ui/button";
import { decisions, DECISIONS } from "./decisions";
import type { InboxDecision } from "./escalated-task";
import { plural, type ReasonGroup } from "./inbox-view";

/** Failures grouped by reason, biggest first, each with one action for the whole group. */
export function ReasonGroups({
  groups,
  busy,
  onDecide,
  onSelect,
}: {
  groups: ReasonGroup[];
  busy: boolean;
  onDecide: (decision: InboxDecision, group: ReasonGroup) => void;
  onSelect: (group: ReasonGroup) => void;
}) {
  if (groups.length === 0) return null;
  return (
    <section aria-labelledby="groups-heading" className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
      <h2 id="groups-heading" className="font-semibold">
        By reason
      </h2>
      <ul className="mt-2 divide-y divide-slate-200">
        {groups.slice(0, 20).map((group) => {
          const name = `${plural(group.items.length)}: ${group.reason}`;
          return (
            <li key={group.reason} className="py-2">
              <div role="group" aria-label={name} className="flex flex-wrap items-center gap-2">
                <p className="min-w-48 flex-1 text-sm wrap-anywhere">
                  <span className="font-semibold">{plural(group.items.length)}:</span> <span data-testid="group-reason">{group.reason}</span>
                </p>
                <Button size="sm" tone="ghost" disabled={busy} onClick={() => onSelect(group)}>
                  Select these
                </Button>
                {DECISIONS.map((decision) => (
                  <Button key={decision} size="sm" tone={decision === "cancel" ? "danger" : "secondary"} disabled={busy} onClick={() => onDecide(decision, group)}>
                    {decisions[decision].label} {group.items.length}
                  </Button>
                ))}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
