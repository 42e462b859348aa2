"use client";

import { useState } from "react";
import { useNow } from "@/components/realtime/clock";
import { useViewer } from "@/components/realtime/viewer";
import { Button, type ButtonTone } from "@/components/ui/button";
import { CheckDialog, TextDialog } from "./dialogs";
import { HandoffDialog } from "./handoff-dialog";
import { SubmitDialog } from "./submit-dialog";
import { reservedSentence, useReservedBy } from "./reserved";
import { useQueueRules } from "./queue-rules";
import { useTaskMutation, type TaskCallVars } from "./mutations";
import { actionLabels, availableActions, isLastStrike, whyNoActions, type TaskAction } from "./permissions";
import { HELD, type TaskView } from "./wire";

const tones: Partial<Record<TaskAction, ButtonTone>> = {
  claim: "primary",
  start: "primary",
  complete: "primary",
  fail: "danger",
  forceRelease: "danger",
  cancel: "danger",
};

type Asking = "check" | "fail" | "release" | "sideEffect" | "submit" | null;

/**
 * The buttons for what the viewer may do to this task now (`only` narrows them, e.g. on
 * a board card). Start asks for the check first when the task needs one; fail and
 * record-side-effect ask for their text.
 */
export function TaskActions({ task, only, size = "md", explain = false }: { task: TaskView; only?: TaskAction[]; size?: "sm" | "md"; explain?: boolean }) {
  const viewer = useViewer();
  const now = useNow(HELD.includes(task.status));
  const mutation = useTaskMutation();
  const [asking, setAsking] = useState<Asking>(null);
  const rules = useQueueRules().get(task.queue);
  // A claim the engine would refuse (not_ready: another holder's reservation) is not offered.
  const reserved = useReservedBy().get(task.id);
  const actions = availableActions(task, viewer, now ?? 0, rules).filter((a) => (!only || only.includes(a)) && !(a === "claim" && reserved));

  const run = (action: TaskAction, vars?: TaskCallVars) => {
    setAsking(null);
    mutation.mutate({ action, task, vars });
  };
  // A person's completion waits for a reviewer where the queue reviews everyone: it asks for
  // the summary the reviewer reads (the engine refuses an empty result there).
  const submits = rules?.review === "everyone";
  const press = (action: TaskAction) => {
    if (action === "start" && task.needsCheck) setAsking("check");
    else if (action === "complete" && submits) setAsking("submit");
    else if (action === "fail") setAsking("fail");
    else if (action === "release") setAsking("release");
    else if (action === "sideEffect") setAsking("sideEffect");
    else run(action);
  };

  if (actions.length === 0 && !asking) {
    // Where a person cannot act, the action area says why in a sentence, not an empty box.
    const why = explain && now !== null ? (reserved ? reservedSentence(reserved) : whyNoActions(task, viewer, now, rules)) : null;
    return why ? <p data-testid="why-no-actions" className="text-sm text-slate-600">{why}</p> : null;
  }
  const mine = task.owner?.id === viewer.actorId;
  return (
    <div className="flex flex-wrap gap-2">
      {actions.map((action) => (
        <Button key={action} size={size} tone={tones[action] ?? "secondary"} disabled={mutation.isPending} onClick={() => press(action)}>
          {action === "claim" && mine ? "Claim again" : action === "complete" && submits ? "Submit for review…" : actionLabels[action]}
        </Button>
      ))}
      {asking === "check" ? (
        <CheckDialog task={task} open onClose={() => setAsking(null)} onConfirm={() => run("start", { confirmCheck: true })} />
      ) : null}
      {asking === "fail" ? (
        <HandoffDialog
          title={`Fail “${task.title}”`}
          intro={`The task goes back to the queue, or to the supervisors' inbox on its last strike (failures so far: ${task.failureCount}${rules ? ` of ${rules.maxFailures}` : ""}).`}
          warning={isLastStrike(task, rules) ? "This is its last strike: failing it sends the task to the supervisors' inbox, not back to the queue." : null}
          reason
          submit="Report failure"
          tone="danger"
          onClose={() => setAsking(null)}
          onSubmit={({ reason, handoff }) => run("fail", { reason, ...(handoff ? { handoff } : {}) })}
        />
      ) : null}
      {asking === "release" ? (
        <HandoffDialog
          title={`Release “${task.title}”`}
          intro="The task goes back to the queue for someone else. A hand-off note tells them where you got to."
          submit="Release"
          tone="primary"
          onClose={() => setAsking(null)}
          onSubmit={({ handoff }) => run("release", handoff ? { handoff } : {})}
        />
      ) : null}
      {asking === "submit" ? <SubmitDialog title={task.title} onClose={() => setAsking(null)} onSubmit={(result) => run("complete", { result })} /> : null}
      {asking === "sideEffect" ? (
        <TextDialog
          open
          onClose={() => setAsking(null)}
          onSubmit={(description) => run("sideEffect", { description })}
          title="Record a side effect"
          label="What are you about to do outside Claimboard?"
          hint="Should your lease lapse, whoever takes the task over is asked to check this first."
          submit="Record side effect"
        />
      ) : null}
    </div>
  );
}
