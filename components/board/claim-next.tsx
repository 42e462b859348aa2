"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { claimNextAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { putTask } from "@/components/task/cache";
import { errorSentence, unwrap } from "@/components/task/mutations";
import { toWire, type TaskView } from "@/components/task/wire";
import { Button } from "@/components/ui/button";
import { useToast } from "@/components/ui/toaster";
import { peopleExcluded, useQueueRules } from "@/components/task/queue-rules";

/**
 * Claim the next task of a queue, in claim order. Which task the server picks is not
 * knowable here (SKIP LOCKED, lapsed leases), so nothing is guessed: the button says it
 * is claiming, and the task lands on the board when the server answers.
 */
export function ClaimNext({ queue }: { queue: string }) {
  const client = useQueryClient();
  const viewer = useViewer();
  const { notify } = useToast();
  const mutation = useMutation({
    mutationFn: async () => {
      const task = await unwrap(claimNextAction({ queue }));
      return task ? (toWire(task) as TaskView) : null;
    },
    onSuccess: (task) => {
      if (!task) {
        notify("info", `Nothing to claim in ${queue} right now.`);
        return;
      }
      putTask(client, task, viewer);
      notify(
        "info",
        <>
          You claimed{" "}
          <Link className="font-medium underline" href={`/tasks/${task.id}`}>
            {task.title}
          </Link>
          .
        </>,
      );
    },
    onError: (error) => notify("error", errorSentence(error, "claim", viewer)),
  });
  // An agents-only queue: no Claim button for people, and a sentence saying why.
  const excluded = peopleExcluded(useQueueRules().get(queue));
  if (excluded) return <p data-testid="claim-next-excluded" className="max-w-xs text-sm text-slate-600">{excluded}</p>;
  return (
    <Button tone="primary" disabled={mutation.isPending} onClick={() => mutation.mutate()}>
      {mutation.isPending ? "Claiming…" : `Claim next in ${queue}`}
    </Button>
  );
}
