"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { setQueuePausedAction } from "@/app/actions/supervise";
import { unwrap } from "@/components/task/mutations";
import { useToast } from "@/components/ui/toaster";
import { supervisorKeys } from "./keys";
import type { QueueSettingsView } from "./types";
import { supervisorErrorSentence } from "./use-supervisor";

/**
 * Pause or resume a queue, shown at once (the table's switch flips before the answer, and
 * flips back with a sentence on refusal). The toast offers Undo: setQueuePaused to the
 * state before is the exact inverse — asking for the state a queue is already in writes
 * nothing — so Undo is a real call, not a promise (docs/board.md "Undo").
 */
export function usePauseQueue() {
  const client = useQueryClient();
  const { notify } = useToast();
  const mutation = useMutation({
    mutationFn: ({ queue, paused }: { queue: string; paused: boolean; undo?: boolean }) => unwrap(setQueuePausedAction({ queue, paused })),
    onMutate: async ({ queue, paused }) => {
      await client.cancelQueries({ queryKey: supervisorKeys.queues });
      const before = client.getQueryData<QueueSettingsView[]>(supervisorKeys.queues);
      client.setQueryData<QueueSettingsView[]>(supervisorKeys.queues, (all) => all?.map((q) => (q.name === queue ? { ...q, paused } : q)));
      return { before };
    },
    onError: (error, { paused }, context) => {
      if (context?.before) client.setQueryData(supervisorKeys.queues, context.before);
      notify("error", supervisorErrorSentence(error, paused ? "pause" : "resume"));
    },
    onSuccess: (_value, { queue, paused, undo }) => {
      const text = paused
        ? `Paused ${queue}: claims hand out nothing; owners finish what they hold.`
        : `Resumed ${queue}: claims hand out its tasks again.`;
      if (undo) return notify("info", text);
      notify("info", text, {
        label: "Undo",
        name: `Undo: ${paused ? "resume" : "pause"} ${queue}`,
        run: () => mutation.mutate({ queue, paused: !paused, undo: true }),
      });
    },
    onSettled: () => client.invalidateQueries({ queryKey: supervisorKeys.all }),
  });
  return {
    toggle: (queue: QueueSettingsView) => mutation.mutate({ queue: queue.name, paused: !queue.paused }),
    pendingFor: (name: string) => mutation.isPending && mutation.variables?.queue === name,
  };
}
