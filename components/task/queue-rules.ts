"use client";

import { useQuery } from "@tanstack/react-query";
import { queueRulesAction } from "@/app/actions/board";
import type { QueueRules } from "@/lib/tasks";
import { unwrap } from "./mutations";

export const queueRulesKey = ["queue-rules"] as const;

/**
 * Who may claim each queue and its last strike, for what the board offers a person and the
 * sentences that say why not. Refetched when a queue's settings change (settings_changed).
 */
export function useQueueRules(): Map<string, QueueRules> {
  const query = useQuery({ queryKey: queueRulesKey, queryFn: () => unwrap(queueRulesAction({})) });
  return new Map((query.data ?? []).map((rule) => [rule.name, rule]));
}

/** Agents-only queues take no claim from a person: the sentence that says so, or null. */
export function peopleExcluded(rules: QueueRules | undefined): string | null {
  return rules?.claimants === "agents" ? `Only agents claim tasks in queue ${rules.name}, so there is no Claim button for people.` : null;
}
