"use server";

import { z } from "zod";
import { guardedAction, operationAction } from "@/lib/auth/action";
import { adoptSchedule, createSchedule, deleteSchedule, listSchedules, updateSchedule } from "@/lib/schedules/ops";
import { ok } from "@/lib/tasks/model";

// The /schedules page's calls: the same operations and read as the API (lib/schedules/ops.ts).
export const createScheduleAction = operationAction("supervisor", createSchedule);
export const updateScheduleAction = operationAction("supervisor", updateSchedule);
export const deleteScheduleAction = operationAction("supervisor", deleteSchedule);
export const adoptScheduleAction = operationAction("supervisor", adoptSchedule);
export const schedulesAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listSchedules(db)));
