import { MOVES, type MoveRow } from "@/lib/tasks/model";
import type { TaskAction } from "./permissions";
import type { TaskView, Viewer } from "./wire";

const me = (viewer: Viewer) => ({ id: viewer.actorId, name: viewer.name, kind: "user" as const });

/**
 * The task as we expect the server to leave it, from the move's row of the machine
 * (lib/tasks/core/machine.ts): shown at once, undone on failure. A rule the server decides
 * (fail's last strike) is left to its answer.
 */
export function predict(action: TaskAction, task: TaskView, viewer: Viewer): Partial<TaskView> {
  const row: MoveRow = MOVES[action];
  return {
    ...(row.to === "same" ? {} : { status: row.to }),
    ...(row.lease === "takes" ? { owner: me(viewer) } : {}),
    ...(row.lease === "ends" ? { owner: null, leaseUntil: null } : {}),
    ...(row.lease === "finishes" ? { leaseUntil: null } : {}),
    ...(row.clearsCheck ? { needsCheck: false } : {}),
    ...(row.failures === "counts" ? { failureCount: task.failureCount + 1 } : row.failures === "resets" ? { failureCount: 0 } : {}),
    ...(row.version ? { version: task.version + 1 } : {}),
  };
}
