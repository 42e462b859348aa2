"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useNow } from "@/components/realtime/clock";
import { inlineLink } from "@/components/ui/button";
import { formatTime, useHydrated, withLocalTimes } from "@/components/ui/local-time";
import { fetchDependents, fetchReadiness, fetchTask, taskKeys } from "./api";
import { AddDependency, DependencyList, NotBeforeForm, RemoveDependencies } from "./relations";
import type { TaskView } from "./wire";

// The work graph on the board and the task page: what a task waits for, what waits for it,
// when it may start, and — from GET /tasks/{id}/readiness, the engine's one answer — why
// it is not being picked up.

/** "in 2 h", "in 5 min", "in 30 s": how far ahead a time is. */
export function inWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `in ${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `in ${min} min`;
  const h = Math.round(min / 60);
  return h < 48 ? `in ${h} h` : `in ${Math.round(h / 24)} days`;
}

/**
 * "blocked by “Order the paint” (#4), “Book the van” (#7)", each a link: what the task waits
 * for, by title. The titles are each blocker's own task query (shared with its page and
 * kept fresh by the stream); the id stands in until one arrives.
 */
export function BlockedBy({ ids }: { ids: string[] }) {
  const blockers = useQueries({ queries: ids.map((id) => ({ queryKey: taskKeys.detail(id), queryFn: () => fetchTask(id) })) });
  if (ids.length === 0) return null;
  return (
    <span data-testid="blocked-by">
      blocked by{" "}
      {ids.flatMap((id, i) => {
        const title = blockers[i]?.data?.title;
        const link = (
          <Link key={id} href={`/tasks/${id}`} className={inlineLink}>
            {title ? <>“{title}” (#{id})</> : `#${id}`}
          </Link>
        );
        return i === 0 ? [link] : [", ", link];
      })}
    </span>
  );
}

/** "not before 14:30 (in 2 h)" while notBefore is ahead; nothing once it has passed. */
export function NotBefore({ iso }: { iso: string | null }) {
  const now = useNow();
  const hydrated = useHydrated();
  if (!iso || (now !== null && Date.parse(iso) <= now)) return null;
  const time = formatTime(iso, false, hydrated ? undefined : "UTC").slice(0, 5) + (hydrated ? "" : " UTC");
  return (
    <span data-testid="not-before">
      not before <time dateTime={iso}>{time}</time>
      {now !== null ? ` (${inWords(Date.parse(iso) - now)})` : ""}
    </span>
  );
}

/** The task page's section: dependencies both ways, and readiness in words. */
/**
 * `termsEditable`: the viewer may set its not-before time (editing.ts, mayChangeTerms);
 * `editable`: the viewer may edit the task (mayEdit), so may take a dependency away.
 */
export function WorkGraph({ task, termsEditable = false, editable = false }: { task: TaskView; termsEditable?: boolean; editable?: boolean }) {
  const now = useNow(false);
  const readiness = useQuery({ queryKey: taskKeys.readiness(task.id), queryFn: () => fetchReadiness(task.id) });
  const dependents = useQuery({ queryKey: [...taskKeys.detail(task.id), "dependents"], queryFn: () => fetchDependents(task.id) });
  const needed = dependents.data ?? [];
  return (
    <section aria-labelledby="graph-heading" className="rounded-lg border border-slate-200 bg-white p-3 text-sm">
      <h2 id="graph-heading" className="text-sm font-semibold">
        Dependencies and readiness
      </h2>
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
        <dt className="text-slate-500">Waits for</dt>
        <dd data-testid="depends-on">
          <DependencyList ids={task.dependsOn} />
        </dd>
        <dt className="text-slate-500">Needed by</dt>
        <dd data-testid="needed-by">
          <DependencyList ids={needed.map((t) => t.id)} />
        </dd>
        {task.notBefore ? (
          <>
            <dt className="text-slate-500">Not before</dt>
            <dd data-testid="graph-not-before">
              <NotBefore iso={task.notBefore} /> {formatTime(task.notBefore, true)}
            </dd>
          </>
        ) : null}
      </dl>
      <AddDependency task={task} />
      {editable ? <RemoveDependencies task={task} /> : null}
      {termsEditable && now !== null ? <NotBeforeForm key={`${task.notBefore}`} task={task} now={now} /> : null}
      <div className="mt-2" data-testid="readiness">
        {/* While an action on this task is on its way, the last answer may already be wrong. */}
        {readiness.data && !task.pending ? (
          readiness.data.claimable ? (
            <p className="text-green-800">You can claim it now.</p>
          ) : (
            <>
              <p className="text-slate-700">Not claimable now{readiness.data.claimableAt ? `; it will be at ${formatTime(readiness.data.claimableAt, true)}` : ""}:</p>
              <ul className="mt-1 list-disc pl-5">
                {readiness.data.reasons.map((r, i) => (
                  <li key={i} data-code={r.code}>
                    {withLocalTimes(r.message)}
                  </li>
                ))}
              </ul>
            </>
          )
        ) : (
          <p className="text-slate-500">{readiness.isError ? "Readiness could not be read." : "Reading readiness…"}</p>
        )}
      </div>
    </section>
  );
}
