import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { ActorRef, TaskStatus } from "./wire";

const statusTone: Record<TaskStatus, BadgeTone> = {
  queued: "slate",
  claimed: "blue",
  started: "violet",
  in_review: "amber",
  awaiting_input: "amber",
  done: "green",
  escalated: "red",
  cancelled: "slate",
};

export function StatusBadge({ status }: { status: TaskStatus }) {
  return <Badge tone={statusTone[status]}>{status}</Badge>;
}

/**
 * Priority in arrows and words, never "P0": here a higher number is claimed sooner and 0
 * is the ordinary case, the opposite of the P0-is-urgent convention people bring along.
 */
export function priorityWords(priority: number): string {
  if (priority > 0) return `priority ${priority}, above normal: claimed sooner`;
  if (priority < 0) return `priority ${priority}, below normal: claimed later`;
  return "normal priority (0)";
}

export function PriorityBadge({ priority }: { priority: number }) {
  const tone: BadgeTone = priority > 0 ? "amber" : "slate";
  const text = priority > 0 ? `↑ ${priority}` : priority < 0 ? `↓ ${-priority}` : "normal";
  return (
    <Badge tone={tone} title={`${priorityWords(priority)} (higher is claimed first)`}>
      <span aria-hidden>{text}</span>
      <span className="sr-only">{priorityWords(priority)}</span>
    </Badge>
  );
}

export function NeedsCheckBadge() {
  return (
    <Badge tone="amber" title="An earlier attempt began a side effect: check it before starting">
      needs check
    </Badge>
  );
}

const kindLabel: Record<ActorRef["kind"], string> = { user: "person", agent: "agent", system: "system" };

/** Who: a name and whether a person, an agent or the system. */
export function ActorName({ actor }: { actor: ActorRef }) {
  return (
    <span className="inline-flex items-center gap-1">
      <span className="font-medium">{actor.name}</span>
      <Badge tone={actor.kind === "agent" ? "violet" : "slate"}>{kindLabel[actor.kind]}</Badge>
    </span>
  );
}
