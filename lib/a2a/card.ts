import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from "@a2a-js/sdk";
import { asc, isNull } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { queues } from "@/db/schema";

// The agent card (docs/a2a.md#the-agent-card): what an A2A client reads before it sends
// anything. Public, like the OpenAPI document: it names the queues (one skill each: a
// message's metadata.queue picks one), the bearer scheme and the JSON-RPC interface.

export const A2A_PATH = "/api/a2a";
const BEARER_SCHEME = "bearer";

/** The queues a task may be sent to: every one not archived (a paused queue takes tasks, it only holds claims). */
export async function openQueues(db: Executor): Promise<{ name: string; description: string }[]> {
  return db.select({ name: queues.name, description: queues.description }).from(queues).where(isNull(queues.archivedAt)).orderBy(asc(queues.name));
}

const skillOf = (queue: { name: string; description: string }): AgentSkill => ({
  id: `queue:${queue.name}`,
  name: queue.name,
  description: queue.description || `Tasks for queue ${queue.name}: people and agents claim, answer and review them on the board`,
  tags: ["claimboard", "queue"],
  examples: [`Send a message with metadata {"queue": "${queue.name}"}: its first line is the task's title`],
  inputModes: ["text/plain", "application/json"],
  outputModes: ["application/json"],
  securityRequirements: [],
});

export function agentCard(origin: string, queueList: { name: string; description: string }[]): AgentCard {
  return {
    name: "Claimboard",
    description: "A task board with people and agents behind it: a message becomes a board task that is claimed, " +
      "worked, asked about (input-required) and reviewed before it completes with its result as an artifact.",
    supportedInterfaces: [{ url: `${origin}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: { organization: "Claimboard", url: origin },
    version: "1.3.0",
    documentationUrl: `${origin}/api-reference`,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [BEARER_SCHEME]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { description: "An agent or supervisor token (cb_…): the API's own bearer tokens", scheme: "Bearer", bearerFormat: "cb_…" },
        },
      },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["application/json"],
    skills: queueList.map(skillOf),
    signatures: [],
  };
}
