import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "@/db/client";
import { queues, type Queue } from "@/db/schema";
import { databaseClock, type Clock } from "@/lib/tasks/clock";
import { defineOperation } from "@/lib/tasks/engine";
import { changeQueueSettings } from "@/lib/tasks/queues";
import { queueName } from "@/lib/tasks/schemas";
import { fail, ok } from "@/lib/tasks/types";
import { POPULATIONS, readDistributions, type DistributionSet, type Population, type QueueDistributions } from "./distributions";
import { recommendLease, type Evidence, type Recommendation } from "./recommend";
import { readClaimants, readQueueFacts, readSeries, type Bucket, type Claimant, type QueueFact } from "./series";
import { at, DEFAULT_WINDOW, spanOf, windowName, type Span, type WindowName } from "./window";

/** One claimant kind's use of a queue: its own distributions, evidence and lease advice. */
export interface PopulationInsights {
  population: Population;
  distributions: QueueDistributions;
  evidence: Evidence;
  recommendation: Recommendation;
}

export interface QueueOverview {
  queue: Queue;
  /** Everyone together. */
  distributions: QueueDistributions;
  /** Each claimant kind that claimed in the queue in the window (and that the queue admits), apart. */
  populations: PopulationInsights[];
  /** The evidence behind `recommendation`: that of the population that claims most. */
  evidence: Evidence;
  /** Set when the lease changed within the window: claims and expiries are counted from then. */
  leaseChangedAt: Date | null;
  /** The queue's lease (what Apply sets): the advice for the population that claims most. */
  recommendation: Recommendation;
}

export interface QueueInsights extends QueueOverview {
  series: Bucket[];
  facts: QueueFact[];
  /** The breaker's last trip or reset before the window: the state the charts start in. */
  factBefore: QueueFact | null;
  claimants: Claimant[];
}

export interface Insights {
  window: WindowName;
  span: Span;
  overview: QueueOverview[];
  /** The chosen queue in detail; null when there is no such queue. */
  selected: QueueInsights | null;
}

async function now(db: Executor, clock: Clock): Promise<Date> {
  const [row] = await db.execute<{ now: string }>(sql`SELECT ${clock.now()} AS now`);
  return new Date(row!.now);
}

interface ClaimCounts {
  claims: number;
  expiries: number;
  /** The same counts per population (of the claimer; of the owner whose lease lapsed). */
  by: Record<Population, { claims: number; expiries: number }>;
  /** The lease was changed in the span at this instant: claims and expiries count from it. */
  leaseChangedAt: Date | null;
}

/**
 * Claims and lapsed leases per queue — since the last lease change in the span, if any:
 * expiries under the old lease say nothing about the new one (and counting them would
 * have the recommendation double a lease that was just doubled).
 */
async function readClaimCounts(db: Executor, span: Span, only?: string): Promise<Map<string, ClaimCounts>> {
  const rows = await db.execute<{
    queue: string; changed_at: string | null;
    people_claims: number; agent_claims: number; people_expiries: number; agent_expiries: number;
  }>(sql`
    WITH changed AS (
      SELECT q.name AS queue,
        (SELECT max(created_at) FROM task_events
          WHERE queue = q.name AND task_id IS NULL AND type = 'settings_changed' AND payload -> 'changes' ? 'leaseSeconds'
            AND created_at >= ${at(span.from)} AND created_at < ${at(span.to)}) AS changed_at
      FROM queues q
      WHERE ${only === undefined ? sql`true` : sql`q.name = ${only}`}
    )
    SELECT c.queue, c.changed_at, k.*, x.*
    FROM changed c
    CROSS JOIN LATERAL (
      SELECT count(*) FILTER (WHERE a.kind = 'user')::int AS people_claims, count(*) FILTER (WHERE a.kind <> 'user')::int AS agent_claims
      FROM task_events e JOIN actors a ON a.id = e.actor_id
      WHERE e.queue = c.queue AND e.type = 'claimed'
        AND e.created_at >= greatest(${at(span.from)}, c.changed_at) AND e.created_at < ${at(span.to)}) k
    CROSS JOIN LATERAL (
      -- A lapse counts against the population of the owner whose lease lapsed.
      SELECT count(*) FILTER (WHERE a.kind = 'user')::int AS people_expiries, count(*) FILTER (WHERE a.kind IS DISTINCT FROM 'user')::int AS agent_expiries
      FROM task_events e LEFT JOIN actors a ON a.id = (e.payload ->> 'previousOwnerId')::uuid
      WHERE e.queue = c.queue AND e.type = 'lease_expired'
        AND e.created_at >= greatest(${at(span.from)}, c.changed_at) AND e.created_at < ${at(span.to)}) x`);
  return new Map(rows.map((r) => [r.queue, {
    claims: r.people_claims + r.agent_claims,
    expiries: r.people_expiries + r.agent_expiries,
    by: { people: { claims: r.people_claims, expiries: r.people_expiries }, agents: { claims: r.agent_claims, expiries: r.agent_expiries } },
    leaseChangedAt: r.changed_at ? new Date(r.changed_at) : null,
  }]));
}

function evidenceOf(queue: Queue, distributions: QueueDistributions, counts: { claims: number; expiries: number } | undefined): Evidence {
  const intervals = distributions.heartbeat_interval;
  return {
    currentSeconds: queue.leaseSeconds,
    intervals: intervals?.count ?? 0,
    p99Ms: intervals?.p99 ?? null,
    claims: counts?.claims ?? 0,
    expiries: counts?.expiries ?? 0,
  };
}

const admits = (queue: Queue, population: Population) => queue.claimants === "anyone" || queue.claimants === population;

/**
 * People and agents renew differently (a browser at a third of the lease while someone is
 * present; a process on its own schedule), so each kind that claims in the queue gets its
 * own evidence and advice — never one p99 over both. The queue's lease follows the kind
 * that claims most (agents may ask for their own leaseSeconds on each claim; docs/insights.md).
 */
function overviewOf(queue: Queue, set: DistributionSet | undefined, counts: ClaimCounts | undefined): QueueOverview {
  const distributions = set?.all ?? {};
  const populations = POPULATIONS.filter((p) => admits(queue, p) && (counts?.by[p].claims ?? 0) > 0).map((population) => {
    const evidence = evidenceOf(queue, set?.[population] ?? {}, counts?.by[population]);
    return { population, distributions: set?.[population] ?? {}, evidence, recommendation: recommendLease(evidence) };
  });
  // Most claims decides; a tie goes to the people (POPULATIONS order), who cannot ask for their own lease.
  const main = [...populations].sort((a, b) => b.evidence.claims - a.evidence.claims)[0];
  const evidence = main?.evidence ?? evidenceOf(queue, distributions, counts);
  return {
    queue, distributions, populations, evidence, leaseChangedAt: counts?.leaseChangedAt ?? null,
    recommendation: main?.recommendation ?? recommendLease(evidence),
  };
}

/** Every queue at a glance over the span (or only `only`): its distributions, evidence and recommendation. */
async function readOverview(db: Executor, span: Span, only?: string): Promise<QueueOverview[]> {
  const [all, distributions, counts] = await Promise.all([
    db.select().from(queues).where(only === undefined ? undefined : eq(queues.name, only)).orderBy(asc(queues.name)),
    readDistributions(db, span, only),
    readClaimCounts(db, span, only),
  ]);
  return all.map((q) => overviewOf(q, distributions.get(q.name), counts.get(q.name)));
}

/** Every queue at a glance (for the span), and the chosen one in detail. */
export async function readInsights(
  db: Executor,
  options: { queue?: string; window?: WindowName; clock?: Clock },
): Promise<Insights> {
  const window = options.window ?? DEFAULT_WINDOW;
  const span = spanOf(window, await now(db, options.clock ?? databaseClock));
  const overview = await readOverview(db, span);
  const chosen = overview.find((o) => o.queue.name === options.queue) ?? (options.queue ? undefined : overview[0]);
  if (!chosen) return { window, span, overview, selected: null };
  const name = chosen.queue.name;
  const [series, facts, claimants] = await Promise.all([
    readSeries(db, name, span),
    readQueueFacts(db, name, span),
    readClaimants(db, name, span),
  ]);
  return { window, span, overview, selected: { ...chosen, series, facts: facts.facts, factBefore: facts.before, claimants } };
}

export const applyRecommendationInput = z.strictObject({ queue: queueName, window: windowName });

/**
 * Supervisor: set the queue's lease to what the evidence of the window recommends now
 * (recomputed here, not taken from the client), recording the evidence with the change.
 */
export const applyRecommendedLease = defineOperation({
  name: "applyRecommendedLease",
  input: applyRecommendationInput,
  async run(tx, input, { actor, clock }) {
    // Only this queue's evidence: the charts and the other queues are not needed to decide.
    const [selected] = await readOverview(tx, spanOf(input.window, await now(tx, clock)), input.queue);
    if (!selected) return fail({ code: "not_found", message: `There is no queue ${input.queue}` });
    const { seconds, why } = selected.recommendation;
    if (seconds === null) return fail({ code: "invalid_request", field: "queue", message: why });
    const changed = await changeQueueSettings(tx, clock, actor, { queue: input.queue, leaseSeconds: seconds }, {
      reason: "recommended",
      window: input.window,
      evidence: { ...selected.evidence, why },
    });
    return changed.ok ? ok(changed.value.queue) : changed;
  },
});
