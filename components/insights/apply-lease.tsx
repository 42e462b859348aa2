"use client";

import { useRouter } from "next/navigation";
import { applyRecommendedLeaseAction } from "@/app/insights/actions";
import { useSupervisorCall } from "@/components/supervisor/use-supervisor";
import { Button } from "@/components/ui/button";
import { useToast } from "@/components/ui/toaster";

/** One click: the server recomputes the recommendation of this window and applies it. */
export function ApplyLease({ queue, window, seconds }: { queue: string; window: string; seconds: number }) {
  const router = useRouter();
  const { notify } = useToast();
  const apply = useSupervisorCall(applyRecommendedLeaseAction, {
    verb: "change the lease of",
    onSuccess: (q) => {
      notify("info", `The lease of ${q.name} is now ${q.leaseSeconds} s.`);
      router.refresh();
    },
  });
  return (
    <Button tone="primary" disabled={apply.isPending} onClick={() => apply.mutate({ queue, window: window as "24h" })}>
      {apply.isPending ? "Applying…" : `Apply ${seconds} s`}
    </Button>
  );
}
