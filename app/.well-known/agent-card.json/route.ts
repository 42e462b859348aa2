import { AgentCard } from "@a2a-js/sdk";
import { getDatabase } from "@/db";
import { agentCard, openQueues } from "@/lib/a2a/card";
import { issuer } from "@/lib/oauth/config";

// The A2A agent card (docs/a2a.md#the-agent-card): public, as A2A clients fetch it before
// they authenticate. It names queues, which every token holder can list anyway, and nothing
// secret. In the protocol's JSON form (the SDK's AgentCard.toJSON).
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const card = agentCard(issuer(request), await openQueues(getDatabase().db));
  return Response.json(AgentCard.toJSON(card), { headers: { "Cache-Control": "public, max-age=60" } });
}
