"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { resolveEffectAction } from "@/app/actions/tasks";
import { useViewer } from "@/components/realtime/viewer";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import type { ResolvedEffectState } from "@/db/schema";
import { LIMITS } from "@/lib/limits";
import { taskKeys } from "./api";
import { ActorName } from "./badges";
import { HELD, type TaskView } from "./wire";

// The effect ledger's open effects as a checklist (docs/effects.md): what an attempt began
// outside the board and has not said the outcome of. An unknown one blocks completion until
// its holder — or a supervisor — says what happened; the engine decides who may.

const tone: Record<string, BadgeTone> = { intended: "blue", unknown: "amber", applied: "green", failed: "slate" };
type Open = TaskView["openEffects"][number];

function Resolve({ task, effect }: { task: TaskView; effect: Open }) {
  const client = useQueryClient();
  const [reference, setReference] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const resolve = async (state: ResolvedEffectState) => {
    setBusy(true);
    setError(null);
    const result = await resolveEffectAction({
      taskId: task.id, effectId: effect.id, version: task.version, state,
      ...(state === "applied" && reference.trim() ? { externalRef: reference.trim() } : {}),
    });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    void client.invalidateQueries({ queryKey: taskKeys.detail(task.id) });
    void client.invalidateQueries({ queryKey: taskKeys.events(task.id) });
  };
  return (
    <div className="mt-2 flex flex-wrap items-end gap-2">
      <div className="min-w-56 flex-1">
        <TextField label="Reference in the other system (optional)" value={reference} limit={LIMITS.externalRef} onChange={(e) => setReference(e.target.value)} />
      </div>
      <Button size="sm" disabled={busy || reference.trim().length > LIMITS.externalRef} onClick={() => void resolve("applied")}>It happened</Button>
      <Button size="sm" disabled={busy} onClick={() => void resolve("failed")}>It did not happen</Button>
      {error ? <p role="alert" className="w-full text-sm text-red-700">{error}</p> : null}
    </div>
  );
}

/** The task page's checklist; the inbox shows the same one under each task (`heading` h4 there, inside the task's h3). */
export function OpenEffects({ task, heading: Heading = "h2" }: { task: TaskView; heading?: "h2" | "h4" }) {
  const viewer = useViewer();
  if (task.openEffects.length === 0) return null;
  const unknown = task.openEffects.filter((e) => e.state === "unknown").length;
  const mayResolve = viewer.role === "supervisor" || (HELD.includes(task.status) && task.owner?.id === viewer.actorId);
  return (
    <section aria-labelledby={`effects-heading-${task.id}`} className="rounded-lg border border-amber-200 bg-amber-50 p-3" data-testid="open-effects">
      <Heading id={`effects-heading-${task.id}`} className="text-sm font-semibold">
        Effects outside the board
      </Heading>
      {unknown > 0 ? (
        <p className="mt-1 text-sm text-amber-900">
          {unknown === 1 ? "One effect is" : `${unknown} effects are`} unknown: an earlier attempt ended before saying what happened. Check the
          other system by the key, then say whether it happened before completing the task.
        </p>
      ) : null}
      <ul className="mt-2 flex flex-col gap-3">
        {task.openEffects.map((effect) => (
          <li key={effect.id} className="text-sm" data-testid="effect" data-state={effect.state} aria-label={`${effect.name}: ${effect.state}`}>
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone={tone[effect.state] ?? "slate"}>{effect.state}</Badge>
              <span className="font-medium break-words">{effect.name}</span>
            </div>
            <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-2 text-xs text-slate-700">
              <dt>Key</dt>
              <dd className="font-mono break-all">{effect.idempotencyKey}</dd>
              {effect.target ? (
                <>
                  <dt>Target</dt>
                  <dd className="break-all">{effect.target}</dd>
                </>
              ) : null}
              <dt>By</dt>
              <dd>
                <ActorName actor={effect.by} /> (attempt {effect.attempt}), <LocalTime iso={effect.at} withDate />
              </dd>
            </dl>
            {effect.state === "unknown" && mayResolve ? <Resolve task={task} effect={effect} /> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
