-- Waiting claims on the fleet (docs/fleet.md "Waiting"): which agent token has a claim wait
-- open, on which queue, since when and until when, true across instances. One row per token,
-- written once when a wait opens (continuing waits keep their `since`) and once when it ends:
-- never per second, never per wake-up. UNLOGGED: a crash that empties it ends every wait too.
CREATE UNLOGGED TABLE "claim_waits" (
	"token_id" uuid PRIMARY KEY NOT NULL REFERENCES "agent_tokens"("id") ON DELETE CASCADE,
	"queue" text NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"until" timestamp with time zone NOT NULL
);
