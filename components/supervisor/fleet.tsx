"use client";

import { EmptyState } from "@/components/ui/empty-state";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { fleetAction } from "@/app/agents/actions";
import { unwrap } from "@/components/task/mutations";
import { toWire, type Wire } from "@/components/task/wire";
import { Badge } from "@/components/ui/badge";
import { Button, focusRing } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import type { Fleet as FleetData, FleetAgent } from "@/lib/fleet";
import { Ago } from "./ago";
import { supervisorKeys } from "./keys";
import { useNowAt, useRefetchAt } from "@/components/realtime/refetch-at";
import { fleetStateAt, type FleetState } from "@/lib/fleet-now";

export type FleetView = Wire<FleetData>;
type AgentView = Wire<FleetAgent>;

/** "lease until 14:03", or — once it is past — "lapsed 3 min ago" in red: nobody has it now. */
function HeldLease({ leaseUntil, now }: { leaseUntil: string; now: number | null }) {
  if (now !== null && Date.parse(leaseUntil) <= now) {
    return <span data-testid="held-lapsed" className="font-medium text-red-800">lapsed <Ago iso={leaseUntil} now={now} /></span>;
  }
  return <>lease until <LocalTime iso={leaseUntil} /></>;
}

const STATE_TONE: Record<FleetState, "green" | "blue" | "slate" | "red"> = { working: "green", waiting: "blue", idle: "slate", gone: "red" };

/** What it does now, by the page's clock (lib/fleet-now.ts): the read's state moved on as leases, waits and sightings end. */
function StateBadge({ agent, now }: { agent: AgentView; now: number | null }) {
  const state = now === null ? agent.state : fleetStateAt(agent, now);
  const text = state === "waiting" && agent.waiting ? <>waiting on {agent.waiting.queue} since{" "}<LocalTime iso={agent.waiting.since} /></> : state;
  return (
    <span data-testid="fleet-state" data-state={state}>
      <Badge tone={STATE_TONE[state]}>{text}</Badge>
    </span>
  );
}

function AgentCard({ agent, now, onRevoke }: { agent: AgentView; now: number | null; onRevoke: (name: string) => void }) {
  const name = agent.actor.name;
  const liveTokens = agent.tokens.filter((t) => !t.revokedAt);
  // Live: a sign of life within its queue's lease (lib/fleet.ts), by the page's clock.
  const isLive = (i: AgentView["instances"][number]) => !!i.liveUntil && (now === null || Date.parse(i.liveUntil) > now);
  const live = agent.instances.filter(isLive).length;
  return (
    <li>
      <section aria-label={`Agent ${name}`} className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h3 className="font-semibold break-all">{name}</h3>
          <span className="flex flex-wrap items-center gap-1.5">
          <StateBadge agent={agent} now={now} />
          {live > 0 ? <Badge tone="green">{live} live instance{live === 1 ? "" : "s"}</Badge> : <Badge>no live instance</Badge>}
          </span>
        </div>
        <dl className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-xs text-slate-700">Last sign of life</dt>
            <dd data-testid="last-seen">{agent.lastSeen ? <>{agent.lastSeen.type.replace("_", " ")}, <Ago iso={agent.lastSeen.at} now={now} /></> : "never"}</dd>
          </div>
          <div>
            <dt className="text-xs text-slate-700">Holds now</dt>
            <dd data-testid="held-count">{agent.heldCount} task{agent.heldCount === 1 ? "" : "s"}</dd>
          </div>
          <div>
            <dt className="text-xs text-slate-700">Last 24 h</dt>
            <dd data-testid="day">{agent.day.done} done · {agent.day.failed} failed · {agent.day.lapsed} lapsed</dd>
          </div>
        </dl>
        {agent.instances.length > 0 ? (
          <ul aria-label={`Instances of ${name}`} className="mt-2 flex flex-wrap gap-2 text-xs">
            {agent.instances.map((i) => (
              <li key={i.instance} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-slate-800">
                {i.instance} <span className="font-sans text-slate-700">· {isLive(i) ? null : <span className="font-medium text-red-800">silent past its lease, </span>}<Ago iso={i.lastSeenAt} now={now} /></span>
              </li>
            ))}
          </ul>
        ) : null}
        {agent.held.length > 0 ? (
          <ul aria-label={`Tasks ${name} holds`} className="mt-2 space-y-0.5 text-sm">
            {agent.held.map((task) => (
              <li key={task.id}>
                <Link href={`/tasks/${task.id}`} className={`rounded text-blue-800 underline underline-offset-2 ${focusRing}`}>
                  #{task.id} {task.title}
                </Link>{" "}
                <span className="text-xs text-slate-700">
                  {task.queue} · {task.status}
                  {task.leaseUntil ? <> · <HeldLease leaseUntil={task.leaseUntil} now={now} /></> : null}
                  {task.withoutProgress && task.withoutProgress.renewals > 0 ? (
                    <span data-testid="renewing-without-progress" className="font-medium text-amber-800">
                      {" "}· renewing without progress ({task.withoutProgress.renewals} of {task.withoutProgress.max})
                    </span>
                  ) : null}
                </span>
              </li>
            ))}
            {agent.heldCount > agent.held.length ? <li className="text-xs text-slate-700">and {agent.heldCount - agent.held.length} more</li> : null}
          </ul>
        ) : null}
        {agent.tokens.length > 0 ? (
          <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
            {agent.tokens.map((token) => (
              <span key={token.id} className="inline-flex items-center gap-1.5">
                <span className="text-slate-700">token</span> <span className="font-medium">{token.name}</span> ({token.role}) ·{" "}
                {token.lastUsedAt ? <>used <Ago iso={token.lastUsedAt} now={now} /></> : "never used"}
                {token.revokedAt ? <Badge tone="red">revoked</Badge> : null}
              </span>
            ))}
            {liveTokens.map((token) => (
              <Button key={token.id} size="sm" tone="danger" aria-label={`Revoke ${token.name} of agent ${name}`} onClick={() => onRevoke(token.name)}>
                Revoke…
              </Button>
            ))}
          </div>
        ) : (
          <p className="mt-2 text-xs text-slate-700">No token: it worked through the engine directly (the demo&apos;s own agents, a script).</p>
        )}
      </section>
    </li>
  );
}

/** The next moment a shown wait ends: the page reads again then (a wait writes no event, and may have been renewed). */
const nextWaitEnd = (agents: AgentView[], now: number | null) =>
  agents.map((a) => a.waiting?.until).filter((t): t is string => !!t && (now === null || Date.parse(t) > now)).sort()[0] ?? null;

/** Every agent: tokens and the agents that worked, busiest-recently first; observer and supervisor tokens apart. */
export function Fleet({ initial, onRevoke }: { initial: FleetView; onRevoke: (name: string) => void }) {
  const { data, refetch, dataUpdatedAt } = useQuery({
    queryKey: supervisorKeys.fleet,
    queryFn: async () => toWire(await unwrap(fleetAction({}))),
    initialData: initial,
  });
  const everyone = [...data.agents, ...data.apart];
  // Ages move every 30 s; "live", "lapsed", "waiting", "idle" and "gone" move the moment a lease, a wait or a sighting ends.
  const now = useNowAt(everyone.flatMap((a) => [...a.instances.map((i) => i.liveUntil), ...a.held.map((h) => h.leaseUntil), a.waiting?.until, a.seenUntil]));
  useRefetchAt(nextWaitEnd(everyone, now), () => void refetch(), dataUpdatedAt);
  return (
    <section aria-labelledby="fleet-heading" className="space-y-2">
      <h2 id="fleet-heading" className="text-lg font-semibold">
        The fleet <span className="text-slate-700">({data.agents.length}{data.truncated ? "+" : ""})</span>
      </h2>
      <p className="text-sm text-slate-700">
        Each agent is <em>working</em> (holds a lease), <em>waiting</em> (a claim wait is open), <em>idle</em> (seen within its queue&apos;s lease) or <em>gone</em>. Instances are the <code>Claimboard-Instance</code> header seen in the last 15 minutes, live while their last sign of life is within their queue&apos;s lease; counts cover the last 24 hours.
      </p>
      {data.agents.length === 0 ? (
        <EmptyState testId="fleet-empty" action={{ label: "Create a token", focus: 'form[aria-label="Create a token"] input' }}>
          No agent has a token or has worked yet. Create a token, then start an agent with it: <code>CLAIMBOARD_TOKEN=cb_… npm run agent</code>, or connect an MCP client to <code>/api/mcp</code> (see the <a className="text-blue-700 underline" href="/api-reference#mcp-heading">API reference</a>).
        </EmptyState>
      ) : null}
      <ul className="space-y-3">
        {data.agents.map((agent) => (
          <AgentCard key={agent.actor.id} agent={agent} now={now} onRevoke={onRevoke} />
        ))}
      </ul>
      {data.apart.length > 0 ? (
        <section aria-labelledby="fleet-apart-heading" className="space-y-2 pt-2">
          <h3 id="fleet-apart-heading" className="text-base font-semibold">
            Observer and supervisor tokens <span className="text-slate-700">({data.apart.length})</span>
          </h3>
          <p className="text-sm text-slate-700">Watchers and operators: not part of the fleet that works the queues.</p>
          <ul className="space-y-3">
            {data.apart.map((agent) => (
              <AgentCard key={agent.actor.id} agent={agent} now={now} onRevoke={onRevoke} />
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}
