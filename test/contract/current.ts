import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ClaimboardClient } from "@/lib/client";
import { buildOpenApiDocument } from "@/lib/http/openapi";
import { createMcpServer } from "@/lib/mcp/server";
import type { McpToolSchema } from "./breaking";

// Today's contract, as a client receives it: the OpenAPI document GET /api/v1/openapi.json
// serves, and the tools an MCP client lists through the SDK's own Client (role unknown: all).

export const currentOpenApi = () => JSON.parse(JSON.stringify(buildOpenApiDocument())) as Record<string, unknown>;

export async function currentMcpTools(): Promise<McpToolSchema[]> {
  // Listing calls no endpoint: a client that cannot reach anything proves it.
  const api = new ClaimboardClient({ baseUrl: "http://127.0.0.1:9", fetch: () => Promise.reject(new Error("listing tools calls no endpoint")) });
  const server = createMcpServer({ client: api, role: null, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "contract-check", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    return tools
      .map(({ name, inputSchema, outputSchema }) => ({ name, inputSchema, ...(outputSchema ? { outputSchema } : {}) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  } finally {
    await client.close();
    await server.close();
  }
}
