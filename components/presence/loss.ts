import type { EventView, TaskView } from "@/components/task/wire";

/** Why a task the person held is no longer theirs, as the notice says it. */
export interface Loss {
  /** One notice per lost attempt: the task and the id of the person's claim event. */
  key: string;
  taskId: string;
  title: string;
  /** Who took it (a takeover) or took it away (a force-release); null when nobody did. */
  by: { name: string; kind: string } | null;
  at: string;
  kind: "taken_over" | "released" | "struck" | "lapsed";
}

const ENDS = new Set(["claimed", "released", "failed", "completed", "lease_expired", "cancelled"]);

/**
 * Reads the task's history after the person's last claim: the first event that ended their
 * attempt says what happened. Their own release, fail or completion is no loss (null).
 */
export function explainLoss(task: TaskView, events: EventView[], me: string): Loss | null {
  const mine = events.findLastIndex((e) => e.type === "claimed" && e.actor.id === me);
  if (mine < 0) return null;
  const after = events.slice(mine + 1).filter((e) => ENDS.has(e.type));
  const end = after[0];
  if (!end) return null;
  const base = { key: `${task.id}:${events[mine]!.id}`, taskId: task.id, title: task.title };
  if (end.type === "lease_expired") {
    const next = after[1];
    if (next?.type === "claimed" && next.actor.id !== me) {
      return { ...base, kind: "taken_over", by: { name: next.actor.name, kind: next.actor.kind }, at: next.createdAt };
    }
    const struck = next?.type === "failed" && next.actor.kind === "system";
    return { ...base, kind: struck ? "struck" : "lapsed", by: null, at: end.createdAt };
  }
  if (end.actor.id === me) return null;
  if (end.type === "released") return { ...base, kind: "released", by: { name: end.actor.name, kind: end.actor.kind }, at: end.createdAt };
  return null;
}
