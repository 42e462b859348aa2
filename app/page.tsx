import type { Metadata } from "next";
import { cookies } from "next/headers";
import Link from "next/link";
import { getDatabase } from "@/db";
import { Board } from "@/components/board/board";
import { boardColumns, boardSearch, countsQuery, listFilterOf, listQuery, parseBoardFilters, viewCookie, type BoardView } from "@/components/task/filters";
import { countTasks, listQueueNames, listTasks } from "@/lib/tasks";
import { toWire, type PageView, type TaskStatus, type TaskView } from "@/components/task/wire";
import { requireUser, streamPosition, SUPERVISOR_PAGES } from "./_lib/session";

export const metadata: Metadata = { title: "Board · Claimboard" };

export default async function BoardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const filters = parseBoardFilters(params);
  const denied = typeof params.denied === "string" && Object.hasOwn(SUPERVISOR_PAGES, params.denied) ? SUPERVISOR_PAGES[params.denied as keyof typeof SUPERVISOR_PAGES] : null;
  const user = await requireUser(`/${boardSearch(filters)}`);
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const columns = boardColumns(filters);
  // The URL's view, else the one this person chose last (a cookie: rendered right the first time).
  const remembered = (await cookies()).get(viewCookie(user.actor.id))?.value;
  const view: BoardView = filters.view ?? (remembered === "list" ? "list" : "columns");
  const [queues, counts, ...pages] = await Promise.all([
    listQueueNames(db),
    countTasks(db, countsQuery(listFilterOf(filters)), user.actor),
    ...columns.map((filter) => listTasks(db, listQuery(filter), user.actor)),
  ]);
  const initial: Partial<Record<TaskStatus, PageView<TaskView>>> = {};
  columns.forEach((filter, i) => (initial[filter.status] = toWire(pages[i]!)));
  return (
    <main className="mx-auto max-w-screen-2xl px-4 py-4">
      <h1 className="sr-only">Board</h1>
      {denied ? (
        <p role="alert" data-testid="denied" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950">
          Only supervisors may open {denied}, so you were brought back to the board. Ask a supervisor if you need something there.
        </p>
      ) : null}
      <Board filters={filters} view={view} actorId={user.actor.id} initial={initial} initialCounts={counts} queues={queues} />
      <footer className="mt-8 border-t border-slate-200 pt-3 text-sm text-slate-600">
        Agents: <Link className="text-blue-700 underline" href="/api-reference">API reference</Link> ·{" "}
        {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- a JSON route, not a page */}
        <a className="text-blue-700 underline" href="/api/v1/health">health</a>
      </footer>
    </main>
  );
}
