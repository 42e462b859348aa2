/**
 * The lease a queue should have, from what its owners really do. See docs/insights.md.
 *
 * A lease must outlast the longest silence of an owner that is still working: the time
 * between two signs of life (claim, start, heartbeat, side effect, completion) in one
 * attempt. We take the p99 of those intervals and allow three of them — the convention
 * that an owner heartbeats at a third of its lease, which is also a fixed point for agents
 * that do exactly that (their interval is a third of the lease they were given, so the
 * recommendation for them is the lease they have). Intervals that ran past the lease left
 * no sample (the lease lapsed first), so frequent expiries override the sample: they mean
 * the lease is too short whatever the survivors show.
 */
export const MIN_LEASE_SECONDS = 5;
export const MAX_LEASE_SECONDS = 3_600;
/** Below this many intervals the p99 is noise: no recommendation. */
export const MIN_SAMPLES = 20;
export const INTERVALS_PER_LEASE = 3;
/** Past this share of claims ending in a lapsed lease, the lease is too short. */
export const EXPIRY_RATE_LIMIT = 0.05;

export type Verdict = "too short" | "too long" | "about right" | "not enough data";

export interface Evidence {
  currentSeconds: number;
  /** Owner intervals (ms) seen in the window and their p99. */
  intervals: number;
  p99Ms: number | null;
  claims: number;
  expiries: number;
}

export interface Recommendation {
  seconds: number | null;
  verdict: Verdict;
  /** One sentence a supervisor can check against the charts. */
  why: string;
}

const clamp = (n: number) => Math.min(MAX_LEASE_SECONDS, Math.max(MIN_LEASE_SECONDS, n));

/** Rounded up to a step a person would type: 5 s under 2 min, 15 s under 10 min, else whole minutes. */
export function roundLease(seconds: number): number {
  const step = seconds <= 120 ? 5 : seconds <= 600 ? 15 : 60;
  return clamp(Math.ceil(seconds / step) * step);
}

const fmt = (seconds: number) => (seconds < 120 ? `${Math.round(seconds * 10) / 10} s` : `${Math.round((seconds / 60) * 10) / 10} min`);

export function recommendLease(e: Evidence): Recommendation {
  const expiryRate = e.claims > 0 ? e.expiries / e.claims : 0;
  if (expiryRate > EXPIRY_RATE_LIMIT) {
    const fromSample = e.p99Ms === null ? 0 : roundLease((INTERVALS_PER_LEASE * e.p99Ms) / 1000);
    const seconds = Math.max(fromSample, roundLease(e.currentSeconds * 2));
    return {
      seconds,
      verdict: seconds > e.currentSeconds ? "too short" : "about right",
      why: `${e.expiries} of ${e.claims} claims (${Math.round(expiryRate * 100)}%) ended with the lease lapsing: owners went silent for longer than ${fmt(e.currentSeconds)}, and those silences left no interval to measure.`,
    };
  }
  if (e.intervals < MIN_SAMPLES || e.p99Ms === null) {
    return {
      seconds: null,
      verdict: "not enough data",
      why: `Only ${e.intervals} intervals between signs of life in this window; at least ${MIN_SAMPLES} are needed.`,
    };
  }
  const seconds = roundLease((INTERVALS_PER_LEASE * e.p99Ms) / 1000);
  const verdict: Verdict = seconds > e.currentSeconds * 1.2 ? "too short" : seconds < e.currentSeconds / 2 ? "too long" : "about right";
  return {
    seconds,
    verdict,
    why: `99% of ${e.intervals} intervals between signs of life were under ${fmt(e.p99Ms / 1000)}; a lease of ${INTERVALS_PER_LEASE} such intervals survives a missed heartbeat and a slow step.`,
  };
}
