"use server";

import { z } from "zod";
import { guardedAction } from "@/lib/auth/action";
import { listAgentTokens } from "@/lib/auth/token-list";
import { ok } from "@/lib/tasks/types";

export const agentTokensAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listAgentTokens(db)));
