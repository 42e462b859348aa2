"use server";

import { z } from "zod";
import { guardedAction } from "@/lib/auth/action";
import { listPausedQueues, listQueueNames } from "@/lib/tasks/queries";
import { ok } from "@/lib/tasks/types";

// Reads the board needs that the agent API does not offer, behind the same guard.
export const listQueuesAction = guardedAction("staff", z.strictObject({}), async (_input, { db }) => ok(await listQueueNames(db)));
export const pausedQueuesAction = guardedAction("staff", z.strictObject({}), async (_input, { db }) => ok(await listPausedQueues(db)));
