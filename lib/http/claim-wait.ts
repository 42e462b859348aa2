import "server-only";
import { idle } from "@/lib/deadline";
import { getClaimWaits } from "@/lib/realtime";
import { HELD_RETRY_SECONDS, takeHeldPlace } from "@/lib/realtime/held-places";
import { DEFAULT_QUEUE } from "@/lib/tasks";
import type { Result } from "@/lib/tasks/model";
import { errorResponse } from "./errors";
import { markWaiting } from "./fleet-waits";

/** A claim's shape for claimWaiting: which claim and its input, less `wait` (the same claim asked again says the same). */
export const claimShape = (claim: "claimNext" | "claimBatch", input: object) => `${claim} ${JSON.stringify({ ...input, wait: undefined })}`;

/** What a waiting claim came to: the claim's own result, the end of the wait with nothing claimed, or the cap's refusal (429). */
export type Waited<T> = Result<T> | { ended: true } | { refusal: Response };

/**
 * A claim that may wait (docs/contract.md "Waiting for work, not polling"; docs/claiming.md).
 * `attempt` is the engine's claim, unchanged; `empty` says it found nothing. With nothing
 * claimable and `waitSeconds` > 0 the request takes a place under the held-request caps
 * (429 beyond them), then waits on the hub (lib/realtime/claim-waits.ts) and tries again
 * when woken, until it claims, is refused, the wait ends, the server stops or the caller
 * goes. The waiter is entered before each try, so an event committed during the try still
 * wakes it. Time spent waiting is idle for the request's deadline (lib/deadline.ts).
 * `shape` names the claim (its input less `wait`): with it, the first try is skipped when
 * the caller's last claim of that shape found nothing and nothing on the queue has changed
 * since (lib/realtime/empty-claims.ts) — an idle agent's next wait costs no claim.
 */
export async function claimWaiting<T>(options: {
  caller: string;
  queue: string | undefined;
  waitSeconds: number | undefined;
  signal?: AbortSignal;
  attempt: () => Promise<Result<T>>;
  empty: (value: T) => boolean;
  shape?: string;
}): Promise<Waited<T>> {
  const { attempt, empty } = options;
  const waitSeconds = options.waitSeconds ?? 0;
  if (waitSeconds <= 0) return attempt();
  const queue = options.queue ?? DEFAULT_QUEUE;
  const place = takeHeldPlace("claim wait", options.caller);
  if ("refused" in place) return { refusal: errorResponse({ code: "rate_limited", message: place.refused, retryAfterSeconds: HELD_RETRY_SECONDS }) };
  const waits = await getClaimWaits();
  const until = Date.now() + waitSeconds * 1000;
  const key = options.shape === undefined ? null : `${options.caller}\n${options.shape}`;
  let unmark: (() => Promise<void>) | null = null;
  let timedOut = false;
  try {
    // No await between the check and the waiter's entry: no event can slip between them.
    let skip = key !== null && waits.empties.stillEmpty(key, queue);
    for (;;) {
      const waiter = waits.enter(queue);
      if (skip) skip = false;
      else {
        const version = waits.version(queue);
        const result = await attempt();
        if (!result.ok || !empty(result.value)) {
          waiter.end("aborted");
          if (result.ok) waits.passOn(waiter);
          return result;
        }
        if (key !== null) waits.empties.remember(key, queue, version);
      }
      const left = until - Date.now();
      if (left <= 0 || options.signal?.aborted) {
        timedOut = left <= 0;
        waiter.end("timeout");
        return { ended: true };
      }
      // Stamped once per wait (not per try): the fleet shows the token waiting on this queue.
      unmark ??= await markWaiting(options.caller, queue, until).catch(() => async () => {});
      const timer = setTimeout(() => waiter.end("timeout"), left);
      const onAbort = () => waiter.end("aborted");
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const why = await idle(waiter.ended);
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      timedOut = why === "timeout";
      if (why !== "woken") return { ended: true };
    }
  } finally {
    place.release();
    // A wait that ran to its end left its row's `until` at that end already: no write.
    if (unmark && !timedOut) await unmark().catch(() => {});
  }
}
