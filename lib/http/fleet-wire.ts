import { z } from "zod";

// GET /api/v1/fleet's answer (docs/fleet.md): what /agents shows, as a wire type. Pure (zod
// only), for the registry (lib/http/endpoints.ts) and so the typed client.

const fleetWait = z
  .object({
    queue: z.string(),
    since: z.iso.datetime().meta({ description: "When it began waiting (continuing waits keep it)" }),
    until: z.iso.datetime().meta({ description: "When the open wait ends at the latest" }),
  })
  .meta({ id: "FleetWait", description: "An open claim wait of one of the agent's tokens" });

export const fleetAgentObject = z
  .object({
    actor: z.object({ id: z.string(), name: z.string() }),
    state: z.enum(["working", "waiting", "idle", "gone"]).meta({
      description: "working: holds a lease; waiting: a claim wait is open; idle: seen within its queue's lease length; gone: none of these",
    }),
    waiting: fleetWait.nullable(),
    seenUntil: z.iso.datetime().nullable().meta({ description: "Past this a quiet agent is gone rather than idle" }),
    heldCount: z.number().int(),
    lastSeen: z.object({ at: z.iso.datetime(), type: z.string() }).nullable(),
    tokens: z.array(z.object({ name: z.string(), role: z.enum(["agent", "supervisor", "observer"]), revoked: z.boolean() })),
  })
  .meta({ id: "FleetAgent", description: "One agent of the fleet and what it is doing now" });

export const fleetResponse = z.object({
  agents: z.array(fleetAgentObject).meta({ description: "Agents with an agent token (or none: the engine called directly), most recently seen first" }),
  apart: z.array(fleetAgentObject).meta({ description: "Agents whose tokens are only observer or supervisor tokens" }),
  truncated: z.boolean(),
});
