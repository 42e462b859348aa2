import { z } from "zod";
import { LIMITS } from "@/lib/limits";
import { createTaskInput, queueName, text } from "@/lib/tasks/model";
import { cronRefusal, timezoneRefusal } from "./cron";

// The schedules' inputs, pure (zod and cron-parser) so the registry and the typed client import them.

const cron = z.string().max(200).superRefine((value, ctx) => {
  const refused = cronRefusal(value);
  if (refused) ctx.addIssue({ code: "custom", message: refused });
});
const timezone = z.string().max(64).superRefine((value, ctx) => {
  const refused = timezoneRefusal(value);
  if (refused) ctx.addIssue({ code: "custom", message: refused });
});
/** What each occurrence creates: the create's own fields and limits. */
const scheduledTask = createTaskInput.pick({ title: true, description: true, priority: true, payload: true }).strict();

export const scheduleName = text(LIMITS.scheduleName, 1);

export const createScheduleInput = z.strictObject({
  name: scheduleName,
  cron,
  timezone: timezone.optional(),
  queue: queueName,
  task: scheduledTask,
  overlap: z.enum(["skip", "allow"]).optional(),
  missed: z.enum(["skip", "once"]).optional(),
});
export const updateScheduleInput = z.strictObject({
  id: z.uuid("must be a schedule id"),
  name: scheduleName.optional(),
  cron: cron.optional(),
  timezone: timezone.optional(),
  task: scheduledTask.optional(),
  overlap: z.enum(["skip", "allow"]).optional(),
  missed: z.enum(["skip", "once"]).optional(),
  paused: z.boolean().optional(),
});
export const updateScheduleBody = updateScheduleInput.omit({ id: true });
export const scheduleIdInput = z.strictObject({ id: z.uuid("must be a schedule id") });
