import type { Metadata } from "next";
import Link from "next/link";
import { getDatabase } from "@/db";
import { Board } from "@/components/board/board";
import { boardColumns, boardSearch, listQuery, parseBoardFilters } from "@/components/task/filters";
import { toWire, type PageView, type TaskStatus, type TaskView } from "@/components/task/wire";
import { listQueueNames, listTasks } from "@/lib/tasks/queries";
import { requireUser, streamPosition } from "./_lib/session";

export const metadata: Metadata = { title: "Board · Claimboard" };

export default async function BoardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseBoardFilters(await searchParams);
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
      <Board filters={filters} initial={initial} queues={queues} />
      <footer className="mt-8 border-t border-slate-200 pt-3 text-sm text-slate-600">
        Agents: <Link className="text-blue-700 underline" href="/api-reference">API reference</Link> ·{" "}
        {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- a JSON route, not a page */}
        <a className="text-blue-700 underline" href="/api/v1/health">health</a>
      </footer>
    </main>
  );
}
