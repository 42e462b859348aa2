"use server";

import { z } from "zod";
import { guardedAction } from "@/lib/auth/action";
import { ok } from "@/lib/tasks/types";
import { listQueueSettings } from "./data";

export const queueSettingsListAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listQueueSettings(db)));
