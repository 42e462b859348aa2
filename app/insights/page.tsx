import type { Metadata } from "next";
import Link from "next/link";
import { getDatabase } from "@/db";
import { readInsights } from "@/lib/insights";
import { EDGES_MS } from "@/lib/insights/distributions";
import { DEFAULT_WINDOW, WINDOWS, windowName, type WindowName } from "@/lib/insights/window";
import { queueName, formatAmount } from "@/lib/tasks/model";
import { ClaimantBars } from "@/components/insights/claimant-bars";
import { HistogramChart } from "@/components/insights/histogram-chart";
import { LeaseCard, VERDICT_TONE } from "@/components/insights/lease-card";
import { RefreshOnEvents } from "@/components/insights/refresh-on-events";
import { marksOf, SeriesChart } from "@/components/insights/series-chart";
import { Badge } from "@/components/ui/badge";
import { focusRing } from "@/components/ui/button";
import { requireSupervisor, streamPosition } from "../_lib/session";

export const metadata: Metadata = { title: "Insights · Claimboard" };

type Search = Promise<Record<string, string | string[] | undefined>>;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function href(queue: string | undefined, window: WindowName) {
  const params = new URLSearchParams();
  if (queue) params.set("queue", queue);
  if (window !== DEFAULT_WINDOW) params.set("window", window);
  const query = params.toString();
  return query ? `/insights?${query}` : "/insights";
}

const pill = (active: boolean) =>
  `rounded-md px-2.5 py-1 text-sm ${focusRing} ${active ? "bg-blue-700 text-white" : "border border-slate-300 bg-white text-slate-800 hover:bg-slate-100"}`;

export default async function InsightsPage({ searchParams }: { searchParams: Search }) {
  const search = await searchParams;
  const q = queueName.safeParse(first(search.queue));
  const w = windowName.safeParse(first(search.window));
  const window = w.success ? w.data : DEFAULT_WINDOW;
  await requireSupervisor(href(q.success ? q.data : undefined, window), "insights");
  await streamPosition(); // before any read: the browser's stream resumes from there
  const insights = await readInsights(getDatabase().db, { queue: q.success ? q.data : undefined, window });
  const selected = insights.selected;
  const from = insights.span.from.getTime();
  const to = insights.span.to.getTime();
  return (
    <main className="mx-auto max-w-screen-xl space-y-4 px-4 py-4">
      <RefreshOnEvents />
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-xl font-semibold">Insights</h1>
        <nav aria-label="Window" className="flex flex-wrap gap-1">
          {(Object.keys(WINDOWS) as WindowName[]).map((name) => (
            <Link key={name} href={href(selected?.queue.name, name)} className={pill(name === window)} aria-current={name === window ? "page" : undefined}>
              {name}
            </Link>
          ))}
        </nav>
      </div>
      <p className="text-sm text-slate-600">
        From the event log over {WINDOWS[window].label}. Opened on the queue that most needs attention (a tripped breaker, then a lease too short); pick another to see its steps, its lapsed leases and its people and agents.
      </p>

      <section aria-label="Queues">
        <ul className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-4">
          {insights.overview.map((o) => (
            <li key={o.queue.name}>
              <Link
                href={href(o.queue.name, window)}
                aria-current={o.queue.name === selected?.queue.name ? "page" : undefined}
                className={`block rounded-lg border p-3 shadow-sm ${focusRing} ${o.queue.name === selected?.queue.name ? "border-blue-600 bg-blue-50" : "border-slate-200 bg-white hover:bg-slate-50"}`}
              >
                <span className="flex items-center justify-between gap-2">
                  <span className="font-medium">{o.queue.name}</span>
                  <Badge tone={VERDICT_TONE[o.recommendation.verdict]}>lease: {o.recommendation.verdict}</Badge>
                </span>
                <span className="mt-1 block text-xs text-slate-600">
                  lease {o.queue.leaseSeconds} s{o.recommendation.seconds !== null ? ` → ${o.recommendation.seconds} s` : ""} · {o.evidence.claims} claims · {o.evidence.expiries} lapsed
                  {o.queue.breakerTrippedAt ? " · breaker tripped" : " · healthy"}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      </section>

      {!selected ? (
        <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          There is no queue named “{first(search.queue)}”. Pick one above.
        </p>
      ) : (
        <>
          <h2 className="text-lg font-semibold">Queue {selected.queue.name}</h2>
          <LeaseCard overview={selected} window={window} changes={selected.facts.filter((f) => f.type === "settings_changed")} />
          <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
            <SeriesChart
              title="Lapsed leases and the breaker"
              buckets={selected.series}
              series={[{ key: "lease_expired", label: "lapsed leases", fill: "fill-red-600" }]}
              from={from} to={to} bucketSeconds={insights.span.bucketSeconds}
              marks={marksOf(selected.facts, selected.factBefore, from, to)}
            />
            <SeriesChart
              title="Throughput"
              buckets={selected.series}
              series={[
                { key: "completed", label: "completed", fill: "fill-green-600" },
                { key: "claimed", label: "claimed", fill: "fill-blue-300" },
              ]}
              from={from} to={to} bucketSeconds={insights.span.bucketSeconds}
            />
            <SeriesChart
              title="Failures"
              buckets={selected.series}
              series={[{ key: "failed", label: "failures", fill: "fill-amber-500" }]}
              from={from} to={to} bucketSeconds={insights.span.bucketSeconds}
            />
            <SeriesChart
              title="Escalations"
              buckets={selected.series}
              series={[{ key: "escalated", label: "escalations", fill: "fill-red-800" }]}
              from={from} to={to} bucketSeconds={insights.span.bucketSeconds}
            />
          </div>
          {(selected.populations.length > 0 ? selected.populations : [{ population: null, distributions: selected.distributions }]).map((p) => (
            <section key={p.population ?? "all"} aria-label={p.population ? `Step times of ${p.population}` : "Step times"} className="space-y-2">
              {p.population ? <h3 className="font-semibold">{p.population === "people" ? "People" : "Agents"}</h3> : null}
          <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
              <HistogramChart
                title="Heartbeat interval"
                hint="Time between an owner's signs of life in one attempt (claim, start, heartbeat, side effect, completion). The lease must outlast the longest."
                distribution={p.distributions.heartbeat_interval} edges={EDGES_MS} leaseMs={selected.queue.leaseSeconds * 1000}
              />
              <HistogramChart
                title="Time in queue"
                hint="From creation, release or requeue to the next claim."
                distribution={p.distributions.time_in_queue} edges={EDGES_MS}
              />
              <HistogramChart
                title="Claim to start"
                hint="From a claim to its start (0 when claimed and started at once)."
                distribution={p.distributions.claim_to_start} edges={EDGES_MS}
              />
              <HistogramChart
                title="Start to complete"
                hint="From start to completion of the attempt that completed."
                distribution={p.distributions.start_to_complete} edges={EDGES_MS}
              />
            </div>
            </section>
          ))}
          <section aria-labelledby="claimants-heading" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
            <h2 id="claimants-heading" className="mb-2 font-semibold">People and agents</h2>
            <ClaimantBars claimants={selected.claimants} />
          </section>
          <section aria-labelledby="spend-heading" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="queue-spend">
            <h2 id="spend-heading" className="mb-2 font-semibold">Spend per done task</h2>
            {selected.spend.length === 0 ? (
              <p className="text-sm text-slate-600">No task done in this window reported spend (agents report it with each heartbeat: docs/budgets.md).</p>
            ) : (
              <ul className="space-y-1 text-sm">
                {selected.spend.map((s) => (
                  <li key={s.unit}>
                    <span className="font-medium">{formatAmount(s.perDone)} {s.unit || "(no unit)"}</span> a done task — {formatAmount(s.spent)} over {s.doneTasks} {s.doneTasks === 1 ? "task" : "tasks"}
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </main>
  );
}
