import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getDatabase } from "@/db";
import { TaskView } from "@/components/task/task-view";
import { toWire } from "@/components/task/wire";
import { HISTORY_LIMIT } from "@/components/task/api";
import { listTaskEvents, type TaskEvent, loadTask } from "@/lib/tasks";
import { taskId } from "@/lib/tasks/model";
import { requireUser, streamPosition } from "../../_lib/session";

export const metadata: Metadata = { title: "Task · Claimboard" };

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireUser(`/tasks/${encodeURIComponent(id)}`);
  if (!taskId.safeParse(id).success) notFound();
  await streamPosition(); // before any read: the browser's stream resumes from there
  const { db } = getDatabase();
  const task = await loadTask(db, id);
  if (!task) notFound();
  const events: TaskEvent[] = [];
  let after: string | null = null;
  do {
    const page = await listTaskEvents(db, id, { limit: 100, ...(after ? { after } : {}) });
    events.push(...page.items);
    after = page.nextCursor;
  } while (after && events.length < HISTORY_LIMIT);
  return (
    // overflow-wrap anywhere: a long URL in a title or description breaks instead of widening the page.
    <main className="mx-auto max-w-screen-xl px-4 py-4 [overflow-wrap:anywhere]">
      <TaskView initial={toWire(task)} events={toWire(events)} />
    </main>
  );
}
