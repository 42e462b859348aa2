import type { Metadata } from "next";
import Link from "next/link";
import { getDatabase } from "@/db";
import { Board } from "@/components/board/board";
import { boardColumns, boardSearch, listQuery, parseBoardFilters } from "@/components/task/filters";
import { toWire, type PageView, type TaskStatus, type TaskView } from "@/components/task/wire";
import { listQueueNames, listTasks } from "@/lib/tasks/queries";
import { requireUser, streamPosition } from "./_lib/session";

export const metadata: Metadata = { title: "Board · Claimboard" };

/** The supervisor pages a staff member may be sent back from, in words. */
const DENIED: Record<string, string> = {
  inbox: "the escalation inbox",
  queues: "the queue settings",
  insights: "Insights",
  agents: "agent tokens",
  people: "people management",
};

export default async function BoardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const filters = parseBoardFilters(params);
  const denied = typeof params.denied === "string" ? (DENIED[params.denied] ?? null) : null;
  const user = await requireUser(`/${boardSearch(filters)}`);
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const columns = boardColumns(filters);
  const [queues, ...pages] = await Promise.all([
    listQueueNames(db),
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
      <Board filters={filters} initial={initial} queues={queues} />
      <footer className="mt-8 border-t border-slate-200 pt-3 text-sm text-slate-600">
        Agents: <Link className="text-blue-700 underline" href="/api-reference">API reference</Link> ·{" "}
        {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- a JSON route, not a page */}
        <a className="text-blue-700 underline" href="/api/v1/health">health</a>
      </footer>
    </main>
  );
}
