"use client";

import Link from "next/link";
import { useNow } from "@/components/realtime/clock";
import { duration } from "@/components/task/lease";
import { Button } from "@/components/ui/button";
import { LocalTime } from "@/components/ui/local-time";
import type { HeldView } from "./lease-keeper";
import type { Loss } from "./loss";

const box = "pointer-events-auto w-full max-w-xl rounded-md border px-3 py-2 text-sm shadow-md";

/**
 * Idle with leases held: before they lapse, say so with a countdown and one click to stay.
 * After a lapse the task is still this person's until someone claims it, so say that too.
 */
export function StillOnIt({ held, onRenew }: { held: HeldView[]; onRenew: () => void }) {
  const now = useNow();
  if (now === null) return null;
  const live = held.filter((h) => h.task.leaseUntil && Date.parse(h.task.leaseUntil) > now && !h.attemptLimited);
  const lapsed = held.filter((h) => !h.task.leaseUntil || Date.parse(h.task.leaseUntil) <= now);
  const first = live.map((h) => Date.parse(h.task.leaseUntil!)).sort((a, b) => a - b)[0];
  const names = (list: HeldView[]) => list.map((h) => `“${h.task.title}”`).join(", ");
  return (
    <>
      {live.length > 0 && first !== undefined ? (
        <div role="alert" data-testid="still-on-it" className={`${box} border-amber-300 bg-amber-50 text-amber-950`}>
          <p>
            <strong>Still on it?</strong> You have been away for a while, so your lease on {names(live)}{" "}
            {live.length > 1 ? "lapses first" : "lapses"} in <span className="font-semibold tabular-nums" data-testid="still-on-it-countdown">{duration(first - now)}</span>.
            After that a colleague or an agent may take it over.
          </p>
          <div className="mt-2">
            <Button size="sm" tone="primary" onClick={onRenew}>
              I&apos;m still on it — renew
            </Button>
          </div>
        </div>
      ) : null}
      {lapsed.length > 0 ? (
        <p role="status" data-testid="lease-lapsed" className={`${box} border-red-300 bg-red-50 text-red-900`}>
          Your lease on {names(lapsed)} has lapsed: it is still yours until someone claims it, and anyone may now. Open it and
          claim it again to keep it.
        </p>
      ) : null}
    </>
  );
}

function sentence(loss: Loss) {
  const task = <Link href={`/tasks/${loss.taskId}`} className="font-medium underline">{loss.title}</Link>;
  const at = <LocalTime iso={loss.at} />;
  switch (loss.kind) {
    case "taken_over":
      return <>{loss.by!.name}{loss.by!.kind === "agent" ? " (an agent)" : ""} took over {task} at {at}: your lease had lapsed. Its history keeps your attempt.</>;
    case "released":
      return <>{loss.by!.name} released {task} from you at {at}; it is back in the queue.</>;
    case "struck":
      return <>{task} reached its attempt ceiling and its lease lapsed at {at}: that counts as a failure.</>;
    default:
      return <>Your lease on {task} lapsed at {at}; it went back to the queue.</>;
  }
}

/** Each task this person lost, until they dismiss it: a takeover is never silent. */
export function LeaseNotices({ losses, onDismiss }: { losses: Loss[]; onDismiss: (key: string) => void }) {
  return (
    <>
      {losses.map((loss) => (
        <div key={loss.key} role="alert" data-testid="takeover-notice" className={`${box} flex items-start gap-3 border-red-300 bg-white text-slate-900`}>
          <p className="flex-1">{sentence(loss)}</p>
          <Button size="sm" tone="ghost" aria-label="Dismiss" onClick={() => onDismiss(loss.key)}>
            ✕
          </Button>
        </div>
      ))}
    </>
  );
}
