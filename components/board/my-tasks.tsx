"use client";

import { useSyncExternalStore } from "react";
import type { ListFilter } from "@/components/task/filters";
import { TaskCards } from "./task-card";
import { useTaskList } from "./use-task-list";

const PHONE = "(max-width: 639px)";

function subscribe(onChange: () => void) {
  const query = window.matchMedia(PHONE);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** True below 640 px (Tailwind's sm), after hydration: the server cannot know the width. */
function usePhone(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(PHONE).matches, () => false);
}

/** "Your tasks", mounted only on a phone: a wide screen does not pay for its two lists. */
export function MyTasksOnPhone({ shared }: { shared: Omit<ListFilter, "status"> }) {
  return usePhone() ? <MyTasks shared={shared} /> : null;
}

/**
 * On a phone the columns stack, and the tasks you hold would sit below every queued card:
 * this puts them first (hidden from sm up, where the columns sit side by side).
 */
export function MyTasks({ shared }: { shared: Omit<ListFilter, "status"> }) {
  const claimed = useTaskList({ ...shared, status: "claimed", mine: true, unowned: undefined });
  const started = useTaskList({ ...shared, status: "started", mine: true, unowned: undefined });
  const tasks = [...started.tasks, ...claimed.tasks];
  // Nothing held: no section at all (on a phone every line of height counts).
  if (tasks.length === 0) return null;
  return (
    <section aria-labelledby="my-tasks" data-testid="my-tasks" className="rounded-lg bg-blue-50 p-1.5 sm:hidden">
      <h2 id="my-tasks" className="px-1 pb-1.5 text-sm font-semibold text-blue-950">
        Your tasks
      </h2>
      <TaskCards tasks={tasks} />
    </section>
  );
}
