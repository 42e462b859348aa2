"use client";

import { useQuery } from "@tanstack/react-query";
import { inboxCountAction } from "@/app/inbox/actions";
import { unwrap } from "@/components/task/mutations";
import { supervisorKeys } from "./keys";

/**
 * How many tasks wait in the escalation inbox, beside the Inbox link. Under the
 * supervisors' keys, so every event on the stream refetches it (components/realtime/invalidate.ts):
 * live, never polled. Nothing shows while it is 0 or not yet known.
 */
export function InboxBadge() {
  const { data } = useQuery({ queryKey: supervisorKeys.inboxCount, queryFn: () => unwrap(inboxCountAction({})) });
  if (!data || data.count === 0) return null;
  const text = `${data.count}${data.more ? "+" : ""}`;
  return (
    <span data-testid="inbox-count" className="ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full bg-red-700 px-1.5 text-xs font-semibold text-white">
      {text}
      <span className="sr-only"> escalated</span>
    </span>
  );
}
