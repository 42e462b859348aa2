import type { QueueOverview } from "./insights";

/**
 * How much a queue needs a supervisor's attention (issue 27 item 8: Insights opens on the
 * queue that needs it most): a tripped breaker first, then a lease too short for its
 * evidence, then one too long, then the rest; within each, more lapsed leases, then more
 * claims. Pure: the overview already holds every number it weighs.
 */
export function attentionRank(o: QueueOverview): [number, number, number] {
  const tier = o.queue.breakerTrippedAt ? 3 : o.recommendation.verdict === "too short" ? 2 : o.recommendation.verdict === "too long" ? 1 : 0;
  return [tier, o.evidence.expiries, o.evidence.claims];
}

/** The queue that most needs attention; the first by name among equals (the overview's order). */
export function mostInNeed(overview: QueueOverview[]): QueueOverview | undefined {
  let best: QueueOverview | undefined;
  let bestRank: [number, number, number] | undefined;
  for (const o of overview) {
    const rank = attentionRank(o);
    if (!bestRank || rank[0] > bestRank[0] || (rank[0] === bestRank[0] && (rank[1] > bestRank[1] || (rank[1] === bestRank[1] && rank[2] > bestRank[2])))) {
      best = o;
      bestRank = rank;
    }
  }
  return best;
}
