import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "@/db/client";
import { queues, type Queue } from "@/db/schema";
import { databaseClock, type Clock, defineOperation, changeQueueSettings } from "@/lib/tasks";
import { queueName, fail, ok, SUPERVISORS } from "@/lib/tasks/model";
import { POPULATIONS, type DistributionSet, type Population, type QueueDistributions } from "./distributions";
import { readPlannedDistributions } from "./rolled";
import { mostInNeed } from "./attention";
import { withReadSettings } from "@/db/read-settings";
import { planOf, type Plan } from "./rollup";
import { recommendLease, type Evidence, type Recommendation } from "./recommend";
import { readClaimants, readQueueFacts, readSeries, type Bucket, type Claimant, type QueueFact } from "./series";
import { readQueueSpend, type QueueSpend } from "./spend";
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
  /** What the queue's tasks done in the window spent, per done task, by unit (docs/budgets.md). */
  spend: QueueSpend[];
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
async function readClaimCounts(db: Executor, plan: Plan, only?: string): Promise<Map<string, ClaimCounts>> {
  const rows = await db.execute<{
    queue: string; changed_at: string | null;
    people_claims: number; agent_claims: number; people_expiries: number; agent_expiries: number;
  }>(sql`
    WITH changed AS MATERIALIZED (
      SELECT q.name AS queue,
        (SELECT max(created_at) FROM task_events
          WHERE queue = q.name AND task_id IS NULL AND type = 'settings_changed' AND payload -> 'changes' ? 'leaseSeconds'
            AND created_at >= ${at(plan.from)} AND created_at < ${at(plan.to)}) AS changed_at
      FROM queues q
      WHERE ${only === undefined ? sql`true` : sql`q.name = ${only}`}
    ),
    -- Counted from lo: the rolled-up hours from r0 (the first whole hour at or after lo)
    -- to h1, raw before r0 (the hour of the lease change among them) and from h1 on.
    bounds AS (
      SELECT queue, changed_at, lo, least(${at(plan.h1)}::timestamptz, greatest(${at(plan.h0)}::timestamptz,
               date_trunc('hour', lo, 'UTC') + CASE WHEN date_trunc('hour', lo, 'UTC') = lo THEN interval '0' ELSE interval '1 hour' END)) AS r0
      FROM (SELECT queue, changed_at, greatest(${at(plan.from)}, changed_at) AS lo FROM changed) c
    ),
    counted AS (
      SELECT b.queue, e.type, e.actor_id, 1 AS n
      FROM bounds b
      CROSS JOIN LATERAL (VALUES (b.lo, b.r0), (greatest(${at(plan.h1)}, b.lo), ${at(plan.to)})) r(a, z)
      CROSS JOIN LATERAL (
        SELECT type, CASE WHEN type = 'lease_expired' THEN (payload ->> 'previousOwnerId')::uuid ELSE actor_id END AS actor_id
        FROM task_events
        WHERE queue = b.queue AND type IN ('claimed', 'lease_expired') AND created_at >= r.a AND created_at < r.z
        OFFSET 0 -- one index range per queue and raw range: flattened, the planner scans the whole log
      ) e
      UNION ALL
      SELECT b.queue, c.type, c.actor_id, c.n
      FROM bounds b JOIN insight_hour_counts c
        ON c.queue = b.queue AND c.hour >= b.r0 AND c.hour < ${at(plan.h1)} AND c.type IN ('claimed', 'lease_expired')
    )
    -- A claim counts for the claimer's population; a lapse against that of the owner whose lease lapsed.
    SELECT b.queue, b.changed_at,
           coalesce(sum(x.n) FILTER (WHERE x.type = 'claimed' AND a.kind = 'user'), 0)::int AS people_claims,
           coalesce(sum(x.n) FILTER (WHERE x.type = 'claimed' AND a.kind IS DISTINCT FROM 'user'), 0)::int AS agent_claims,
           coalesce(sum(x.n) FILTER (WHERE x.type = 'lease_expired' AND a.kind = 'user'), 0)::int AS people_expiries,
           coalesce(sum(x.n) FILTER (WHERE x.type = 'lease_expired' AND a.kind IS DISTINCT FROM 'user'), 0)::int AS agent_expiries
    FROM bounds b LEFT JOIN counted x ON x.queue = b.queue LEFT JOIN actors a ON a.id = x.actor_id
    GROUP BY b.queue, b.changed_at`);
  return new Map(rows.map((r) => [r.queue, {
    claims: r.people_claims + r.agent_claims,
    expiries: r.people_expiries + r.agent_expiries,
    by: { people: { claims: r.people_claims, expiries: r.people_expiries }, agents: { claims: r.agent_claims, expiries: r.agent_expiries } },
    leaseChangedAt: r.changed_at ? new Date(r.changed_at) : null,
  }]));
}

/**
 * While presence renews a person's leases (personIdleSeconds > 0, docs/attention.md), a person's
 * lapse means they were away longer than that, not that the lease is too short: it is not
 * counted against the queue's lease length.
 */
const idleLapses = (queue: Queue) => queue.personIdleSeconds > 0;

function evidenceOf(queue: Queue, distributions: QueueDistributions, counts: { claims: number; expiries: number } | undefined, peopleExpiries = 0): Evidence {
  const intervals = distributions.heartbeat_interval;
  return {
    currentSeconds: queue.leaseSeconds,
    intervals: intervals?.count ?? 0,
    p99Ms: intervals?.p99 ?? null,
    claims: counts?.claims ?? 0,
    expiries: Math.max(0, (counts?.expiries ?? 0) - (idleLapses(queue) ? peopleExpiries : 0)),
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
    const evidence = evidenceOf(queue, set?.[population] ?? {}, counts?.by[population], population === "people" ? counts?.by.people.expiries : 0);
    return { population, distributions: set?.[population] ?? {}, evidence, recommendation: recommendLease(evidence) };
  });
  // Most claims decides; a tie goes to the people (POPULATIONS order), who cannot ask for their own lease.
  const main = [...populations].sort((a, b) => b.evidence.claims - a.evidence.claims)[0];
  const evidence = main?.evidence ?? evidenceOf(queue, distributions, counts, counts?.by.people.expiries);
  return {
    queue, distributions, populations, evidence, leaseChangedAt: counts?.leaseChangedAt ?? null,
    recommendation: main?.recommendation ?? recommendLease(evidence),
  };
}

/** Every queue at a glance over the span (or only `only`): its distributions, evidence and recommendation. */
async function readOverview(db: Executor, plan: Plan, only?: string): Promise<QueueOverview[]> {
  const [all, distributions, counts] = await Promise.all([
    db.select().from(queues).where(only === undefined ? undefined : eq(queues.name, only)).orderBy(asc(queues.name)),
    readPlannedDistributions(db, plan, only),
    readClaimCounts(db, plan, only),
  ]);
  return all.map((q) => overviewOf(q, distributions.get(q.name), counts.get(q.name)));
}

/** Every queue at a glance (for the span), and the chosen one in detail. */
export async function readInsights(
  db: Executor,
  /** rollups: false reads the whole window raw, exactly (the bench's baseline, the tests' oracle). */
  options: { queue?: string; window?: WindowName; clock?: Clock; rollups?: boolean },
): Promise<Insights> {
  const window = options.window ?? DEFAULT_WINDOW;
  const span = spanOf(window, await now(db, options.clock ?? databaseClock));
  // The first reader of a closed hour rolls it up (lib/insights/rollup.ts); later ones read the rollup.
  const plan = options.rollups === false ? { ...span, h0: span.to, h1: span.to } : await planOf(db, span, { write: true });
  // One transaction with JIT off (db/read-settings.ts): the statements are small whatever the planner estimates.
  return withReadSettings(db, async (tx) => {
    const overview = await readOverview(tx, plan);
    const chosen = overview.find((o) => o.queue.name === options.queue) ?? (options.queue ? undefined : mostInNeed(overview));
    if (!chosen) return { window, span, overview, selected: null };
    const name = chosen.queue.name;
    const [series, facts, claimants, spend] = await Promise.all([
      readSeries(tx, name, plan),
      readQueueFacts(tx, name, span),
      readClaimants(tx, name, plan),
      readQueueSpend(tx, name, span),
    ]);
    return { window, span, overview, selected: { ...chosen, series, facts: facts.facts, factBefore: facts.before, claimants, spend } };
  });
}

export const applyRecommendationInput = z.strictObject({ queue: queueName, window: windowName });

/**
 * Supervisor: set the queue's lease to what the evidence of the window recommends now
 * (recomputed here, not taken from the client), recording the evidence with the change.
 */
export const applyRecommendedLease = defineOperation({
  name: "applyRecommendedLease",
  who: SUPERVISORS,
  input: applyRecommendationInput,
  async run(tx, input, { actor, clock }) {
    // Only this queue's evidence: the charts and the other queues are not needed to decide.
    // Inside the operation's transaction: existing rollups only (a rollup written here would hold the queue's markers).
    const plan = await planOf(tx, spanOf(input.window, await now(tx, clock)), { write: false, only: input.queue });
    const [selected] = await withReadSettings(tx, (t) => readOverview(t, plan, input.queue));
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
