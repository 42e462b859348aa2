"use client";

import { useState } from "react";
import { useNow } from "@/components/realtime/clock";
import { useViewer } from "@/components/realtime/viewer";
import { Button, type ButtonTone } from "@/components/ui/button";
import { CheckDialog, TextDialog } from "./dialogs";
import { useTaskMutation, type TaskCallVars } from "./mutations";
import { actionLabels, availableActions, type TaskAction } from "./permissions";
import { HELD, type TaskView } from "./wire";

const tones: Partial<Record<TaskAction, ButtonTone>> = {
  claim: "primary",
  start: "primary",
  complete: "primary",
  fail: "danger",
  forceRelease: "danger",
  cancel: "danger",
};

type Asking = "check" | "fail" | "sideEffect" | null;

/**
 * The buttons for what the viewer may do to this task now (`only` narrows them, e.g. on
 * a board card). Start asks for the check first when the task needs one; fail and
 * record-side-effect ask for their text.
 */
export function TaskActions({ task, only, size = "md" }: { task: TaskView; only?: TaskAction[]; size?: "sm" | "md" }) {
  const viewer = useViewer();
  const now = useNow(HELD.includes(task.status));
  const mutation = useTaskMutation();
  const [asking, setAsking] = useState<Asking>(null);
  const actions = availableActions(task, viewer, now ?? 0).filter((a) => !only || only.includes(a));

  const run = (action: TaskAction, vars?: TaskCallVars) => {
    setAsking(null);
    mutation.mutate({ action, task, vars });
  };
  const press = (action: TaskAction) => {
    if (action === "start" && task.needsCheck) setAsking("check");
    else if (action === "fail") setAsking("fail");
    else if (action === "sideEffect") setAsking("sideEffect");
    else run(action);
  };

  if (actions.length === 0 && !asking) return null;
  const mine = task.owner?.id === viewer.actorId;
  return (
    <div className="flex flex-wrap gap-2">
      {actions.map((action) => (
        <Button key={action} size={size} tone={tones[action] ?? "secondary"} disabled={mutation.isPending} onClick={() => press(action)}>
          {action === "claim" && mine ? "Claim again" : actionLabels[action]}
        </Button>
      ))}
      {asking === "check" ? (
        <CheckDialog task={task} open onClose={() => setAsking(null)} onConfirm={() => run("start", { confirmCheck: true })} />
      ) : null}
      {asking === "fail" ? (
        <TextDialog
          open
          onClose={() => setAsking(null)}
          onSubmit={(reason) => run("fail", { reason })}
          title={`Fail “${task.title}”`}
          label="Reason"
          hint={`The task goes back to the queue, or to the supervisors' inbox on its last strike (failures so far: ${task.failureCount}).`}
          submit="Report failure"
          tone="danger"
        />
      ) : null}
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
