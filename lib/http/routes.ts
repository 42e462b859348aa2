import "server-only";
import type { z } from "zod";
import type { Operation } from "@/lib/tasks/engine";
import type { Task } from "@/lib/tasks/types";
import type { Endpoint } from "./endpoints";
import { handle, respond } from "./handler";

/** POST /tasks/{id}/<verb>: the body plus the path's task id, one engine call, `{task}` back. */
export function taskCallRoute<S extends z.ZodType>(endpoint: Endpoint, op: Operation<S, Task>) {
  return handle(endpoint, async ({ run, body, params }) =>
    respond(await run(op, { ...(body as object), taskId: params.id }), (task) => ({ task })),
  );
}
