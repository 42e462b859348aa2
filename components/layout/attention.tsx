"use client";

import { useQuery } from "@tanstack/react-query";
import { attentionKey } from "./attention-key";
import { useRefetchAt } from "@/components/realtime/refetch-at";
import type { Wire } from "@/components/task/wire";
import type { Attention, AttentionKind } from "@/lib/attention/kinds";

export type AttentionView = Wire<Attention>;

/**
 * What waits for the signed-in person (docs/attention.md), shared by every badge of the nav and
 * the notifications: one query, live over the event stream, and looked at again when time alone
 * changes it (a lease nears its end or lapses: nothing is written then). Read with a GET of
 * /api/v1/me/attention (the session cookie authenticates it), not a server action: Next.js runs
 * a page's server actions one at a time, and a read refetched on every event queued the
 * person's own Start or Complete behind it (navigating away then dropped the queued act).
 */
export function useAttention(): AttentionView | undefined {
  const query = useQuery({ queryKey: attentionKey, queryFn: readAttention });
  useRefetchAt(query.data?.nextChangeAt, () => void query.refetch(), query.dataUpdatedAt);
  return query.data;
}

async function readAttention(): Promise<AttentionView> {
  const response = await fetch("/api/v1/me/attention", { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`attention: HTTP ${response.status}`);
  return (await response.json()) as AttentionView;
}

const WORDS: Record<AttentionKind, [string, string]> = {
  questions: ["question to answer", "questions to answer"],
  reviews: ["review waiting", "reviews waiting"],
  budgets: ["budget to raise", "budgets to raise"],
  lapsing: ["lease about to lapse", "leases about to lapse"],
  lapsed: ["lapsed lease", "lapsed leases"],
  escalated: ["escalated", "escalated"],
  effects: ["unknown effect to resolve", "unknown effects to resolve"],
};

/** The sum of `kinds` beside a nav link, with each in words for a screen reader; nothing while 0. */
export function AttentionBadge({ kinds, testId }: { kinds: readonly AttentionKind[]; testId: string }) {
  const data = useAttention();
  if (!data) return null;
  const parts = kinds.filter((k) => data.counts[k] > 0);
  const total = parts.reduce((n, k) => n + data.counts[k], 0);
  if (total === 0) return null;
  const more = parts.some((k) => data.more.includes(k));
  const urgent = parts.includes("lapsing") || parts.includes("escalated") || parts.includes("lapsed");
  return (
    <span
      data-testid={testId}
      title={parts.map((k) => `${data.counts[k]} ${WORDS[k][data.counts[k] === 1 ? 0 : 1]}`).join(", ")}
      className={`ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full px-1.5 text-xs font-semibold tabular-nums text-white ${urgent ? "bg-red-700" : "bg-blue-700"}`}
    >
      <span aria-hidden>{`${total}${more ? "+" : ""}`}</span>
      <span className="sr-only">{`: ${parts.map((k) => `${data.counts[k]}${data.more.includes(k) ? "+" : ""} ${WORDS[k][data.counts[k] === 1 ? 0 : 1]}`).join(", ")}`}</span>
    </span>
  );
}
