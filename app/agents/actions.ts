"use server";

import { z } from "zod";
import { guardedAction } from "@/lib/auth/action";
import { listAgentTokens } from "@/lib/auth/token-list";
import { readFleet } from "@/lib/fleet";
import { ok } from "@/lib/tasks/model";

export const agentTokensAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await listAgentTokens(db)));

// The fleet page's read, refetched on events like the other supervisor pages (lib/fleet.ts says why it stays cheap).
export const fleetAction = guardedAction("supervisor", z.strictObject({}), async (_input, { db }) => ok(await readFleet(db)));
