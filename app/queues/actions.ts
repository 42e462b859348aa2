"use server";

import { z } from "zod";
import { guardedAction, operationAction } from "@/lib/auth/action";
import { archiveQueue, createQueue, unarchiveQueue, listQueues } from "@/lib/tasks";
import { ok } from "@/lib/tasks/model";

// Supervisors only: the /queues page's list and the queue lifecycle (docs/engine.md).
export const queueSettingsListAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listQueues(db)));
export const createQueueAction = operationAction("supervisor", createQueue);
export const archiveQueueAction = operationAction("supervisor", archiveQueue);
export const unarchiveQueueAction = operationAction("supervisor", unarchiveQueue);
