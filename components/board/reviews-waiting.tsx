"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { reviewsWaitingAction } from "@/app/actions/board";
import { taskKeys } from "@/components/task/api";
import { unwrap } from "@/components/task/mutations";
import { focusRing } from "@/components/ui/button";
import { countText } from "./counts";

/**
 * "3 reviews wait for you": in_review tasks the signed-in person may review (docs/board.md).
 * Under the counts' key, so every event that moves a task refetches it with them; the link
 * filters the board on the status.
 */
export function ReviewsWaiting() {
  const query = useQuery({
    queryKey: [...taskKeys.counts, "reviews-waiting"],
    queryFn: async () => unwrap(reviewsWaitingAction({})),
  });
  const count = query.data?.count ?? 0;
  if (count === 0) return null;
  return (
    <p role="status" data-testid="reviews-waiting" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-1.5 text-sm text-amber-900">
      <Link href="/?status=in_review" className={`rounded underline underline-offset-2 ${focusRing}`}>
        {countText(count, 1000)} {count === 1 ? "review waits" : "reviews wait"} for you
      </Link>
    </p>
  );
}
