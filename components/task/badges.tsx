import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { ActorRef, TaskStatus } from "./wire";

const statusTone: Record<TaskStatus, BadgeTone> = {
  queued: "slate",
  claimed: "blue",
  started: "violet",
  done: "green",
  escalated: "red",
  cancelled: "slate",
};

export function StatusBadge({ status }: { status: TaskStatus }) {
  return <Badge tone={statusTone[status]}>{status}</Badge>;
}

export function PriorityBadge({ priority }: { priority: number }) {
  const tone: BadgeTone = priority > 0 ? "amber" : "slate";
  return (
    <Badge tone={tone} title="Priority: higher is claimed first">
      P{priority}
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
