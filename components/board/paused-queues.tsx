"use client";

import { useQuery } from "@tanstack/react-query";
import { pausedQueuesAction } from "@/app/actions/board";
import { queueKeys } from "@/components/task/api";
import { unwrap } from "@/components/task/mutations";
import { LocalTime } from "@/components/ui/local-time";

/** "Queue imports is paused by Sara since 14:02": claims there hand out nothing until resumed. */
export function PausedQueues() {
  const { data } = useQuery({ queryKey: [...queueKeys, "paused"], queryFn: () => unwrap(pausedQueuesAction({})) });
  if (!data || data.length === 0) return null;
  return (
    <div role="status" data-testid="paused-queues" className="rounded-lg border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
      {data.map((q) => (
        <p key={q.name}>
          Queue <strong>{q.name}</strong> is paused{q.pausedBy ? ` by ${q.pausedBy}` : ""}
          {q.pausedAt ? <> since <LocalTime iso={q.pausedAt} /></> : null}: nothing there is handed out until a supervisor resumes it.
        </p>
      ))}
    </div>
  );
}
