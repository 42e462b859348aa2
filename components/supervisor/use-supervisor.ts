"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ActionResult } from "@/lib/auth/action";
import { describeError } from "@/components/task/describe-error";
import { ActionFailure, unwrap } from "@/components/task/mutations";
import { useToast } from "@/components/ui/toaster";
import { supervisorKeys } from "./keys";

/** A sentence for a failed supervisor call (no task involved): the shared wording, or a network hint. */
export function supervisorErrorSentence(error: unknown, verb: string): string {
  if (error instanceof ActionFailure) return describeError(error.error, verb);
  return "Couldn't reach the server. Check your connection and try again.";
}

/**
 * A supervisor's call that is not a task transition (reset a breaker, sweep, tokens,
 * queue settings): the server action, a toast on failure, and the supervisor pages
 * refetched afterwards either way.
 */
export function useSupervisorCall<I, T>(
  call: (input: I) => Promise<ActionResult<T>>,
  options: { verb: string; onSuccess?: (value: T, input: I) => void; toastErrors?: boolean },
) {
  const client = useQueryClient();
  const { notify } = useToast();
  return useMutation({
    mutationFn: (input: I) => unwrap(call(input)),
    onSuccess: (value, input) => options.onSuccess?.(value, input),
    onError: (error) => {
      if (options.toastErrors !== false) notify("error", supervisorErrorSentence(error, options.verb));
    },
    onSettled: () => client.invalidateQueries({ queryKey: supervisorKeys.all }),
  });
}
