import type { z } from "zod";
import { endpoints } from "@/lib/http/endpoints";
import { otherMethods } from "@/lib/http/routes";
import { handle, respond } from "@/lib/http/handler";
import { forceRelease } from "@/lib/tasks";
import type { superviseBody } from "@/lib/tasks/schemas";

type SuperviseBody = z.infer<typeof superviseBody>;

/**
 * Supervisor tokens only: take a held task back, as the board's force-release does. The
 * `reason` becomes the task's hand-off note, so whoever claims it next reads why
 * (docs/api.md); the rule itself is forceRelease's (lib/tasks/release.ts).
 */
export const POST = handle(endpoints.forceReleaseTask, async ({ run, body, params }) => {
  const { version, reason } = body as SuperviseBody;
  const handoff = reason?.trim() ? { summary: reason.trim() } : undefined;
  return respond(await run(forceRelease, { taskId: params.id, version, ...(handoff ? { handoff } : {}) }), (task) => ({ task }));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods(endpoints.forceReleaseTask);
