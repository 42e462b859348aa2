// The reference agent's calls on a task it holds (scripts/agent.ts): which failures mean the
// task is lost, which are waited out, and an owner call retried while the lease could be ours.
import { setTimeout as delay } from "node:timers/promises";
import { ClaimboardApiError, type Task } from "../lib/client";

/**
 * Codes that mean the task is no longer ours to work on: stop at once. Any other 4xx is fatal.
 * attempt_limit: the queue's attempt ceiling is reached; the lapse that follows is a strike.
 * no_progress: renewals without progress reached the queue's limit; the attempt failed.
 */
export const LOST = new Set(["lease_expired", "not_owner", "version_conflict", "invalid_transition", "not_found", "attempt_limit", "claim_ended", "no_progress"]);

export const log = (line: string) => console.log(line);

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export const sleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal }).catch(() => {});

export const isApiError = (error: unknown): error is ClaimboardApiError => error instanceof ClaimboardApiError;
export const describe = (error: unknown) => (isApiError(error) ? `${error.code}: ${error.message}` : String(error));
export const transient = (error: unknown) =>
  isApiError(error) && (error.status === 0 || error.status >= 500 || error.code === "busy" || error.code === "rate_limited");

/** The lease left as of the server's answer, in ms (both timestamps come from the database clock). */
export const leaseLeftMs = (task: Task) => (task.leaseUntil ? Date.parse(task.leaseUntil) - Date.parse(task.updatedAt) : 0);

export class Fatal extends Error {}

/**
 * An owner call, retried while the server is busy, rate-limiting or unreachable (a retry
 * of a call that already took effect answers 200) — for as long as the lease could still
 * be ours: past that the task is someone else's to take, so the agent lets it go and
 * carries on rather than exiting. Null when the task is no longer ours.
 */
export async function ownerCall<T>(task: Task, verb: string, call: () => Promise<T>): Promise<T | null> {
  const until = Date.now() + leaseLeftMs(task);
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (transient(error) && (attempt < 5 || Date.now() < until)) {
        const seconds = (error as ClaimboardApiError).retryAfter ?? Math.min(attempt, 5);
        log(`${verb} ${task.id} failed (${describe(error)}); retrying in ${seconds}s`);
        await sleep(seconds * 1000);
        continue;
      }
      if (transient(error)) {
        log(`gave up ${verb} ${task.id} after its lease: ${describe(error)} (the next claimer takes it over)`);
        return null;
      }
      if (isApiError(error) && LOST.has(error.code)) {
        log(`lost ${task.id} on ${verb}: ${describe(error)}`);
        return null;
      }
      throw new Fatal(`${verb} ${task.id}: ${describe(error)}`);
    }
  }
}
