import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { ClaimboardApiError, type ClaimboardClient, type Task } from "@/lib/client";
import type { TokenRole } from "@/db/schema";
import { endpoints, type EndpointId } from "@/lib/http/endpoints";
import { safeParse, validationError } from "@/lib/tasks/model";
import { registerPrompts, registerResources, INSTRUCTIONS } from "./guide";
import { fromThrown, invalid, success } from "./results";
import { jsonSchema } from "./schemas";
import { tools, type Tool } from "./tools";

export interface McpOptions {
  /** The typed client every tool calls: over HTTP (stdio) or into this process's routes (/api/mcp). */
  client: ClaimboardClient;
  /** The token's role, which decides the tools listed (observers: the read tools); null when unknown: all. */
  role: TokenRole | null;
  /**
   * The token roles the API admits on an endpoint: lib/http/access.ts's rolesOf in process, the
   * OpenAPI document's x-roles over stdio (lib/mcp/role.ts). Without it every tool is listed.
   */
  rolesOf?: (endpoint: EndpointId) => readonly TokenRole[] | "public";
  /** Sees every task a call answers with, refusals' included (the stdio lease keeper); `claimed`: the caller just claimed it. */
  onTask?: (task: Task, claimed: boolean) => void;
  /**
   * Over HTTP, where no process outlives the call: a tool call naming a task this actor
   * holds renews its lease (a heartbeat), unless the call itself set or ended the lease.
   */
  renewFor?: string;
  /**
   * Over stdio with claim tokens (lib/mcp/claim-clients.ts): the client a call naming task `id`
   * goes with instead of `client` (null: `client`); `ended` hears a claim token refused as ended.
   */
  claims?: { clientFor(id: string): Promise<ClaimboardClient | null>; ended(id: string): void };
  /** Where diagnostics go (never stdout over stdio: that is the protocol). */
  log?: (line: string) => void;
}

export const SERVER_INFO = { name: "claimboard", version: "1.2.0" };

/** Who may call a tool is the API's rule: its endpoint's roles. */
const listedFor = (tool: Tool, { role, rolesOf }: McpOptions) => {
  const roles = role === null || !rolesOf ? "public" : rolesOf(tool.endpoint);
  return roles === "public" || roles.includes(role!);
};

/** MCP's behaviour hints: reads are read-only; a write says whether it is destructive and idempotent. The board is a closed world. */
export function annotations(tool: Tool): ToolAnnotations {
  const readOnly = endpoints[tool.endpoint].method === "GET" || tool.readsOnly === true;
  return {
    title: tool.title,
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && tool.effect.destructive,
    idempotentHint: readOnly || tool.effect.idempotent,
    openWorldHint: false,
  };
}

export function createMcpServer(options: McpOptions): McpServer {
  const log = options.log ?? ((line: string) => console.error(line));
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { resources: {}, prompts: {} } });
  // Tools by hand rather than registerTool: arguments are checked by the API's schemas and
  // refused in the API's error shape (the SDK's own check answers in its own words).
  server.server.registerCapabilities({ tools: {} });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.filter((tool) => listedFor(tool, options)).map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(tool.input, "input", tool.hints),
      outputSchema: jsonSchema(tool.output, "output"),
      annotations: annotations(tool),
    })),
  }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(tool, request.params.arguments ?? {}, options, log);
  });
  registerResources(server, options.client);
  registerPrompts(server);
  return server;
}

async function callTool(tool: Tool, args: unknown, options: McpOptions, log: (line: string) => void): Promise<CallToolResult> {
  const parsed = safeParse(tool.input, args);
  if (!parsed.success) return invalid(validationError(parsed.error));
  const id = (parsed.data as { id?: string }).id;
  try {
    // complete_task with `next` claims another task too: a claim token may not, so it goes with the agent token.
    const claimsAnother = (parsed.data as { next?: unknown }).next !== undefined;
    const client = (id && !claimsAnother && (await options.claims?.clientFor(id))) || options.client;
    const value = await tool.call(client, parsed.data);
    observe(value, options, tool.endpoint === "claimNext" || tool.endpoint === "claimTask");
    if (options.renewFor && id && tool.leaseEffect === "none") await renewIfHeld(id, value, options);
    return success(value);
  } catch (error) {
    if (error instanceof ClaimboardApiError && error.task) options.onTask?.(error.task, false);
    if (error instanceof ClaimboardApiError && error.code === "claim_ended" && id) options.claims?.ended(id);
    return fromThrown(error, log, tool.name);
  }
}

function observe(value: Record<string, unknown>, options: McpOptions, claimed: boolean) {
  if (!options.onTask) return;
  const found = [value.task, ...(Array.isArray(value.tasks) ? value.tasks : [])];
  for (const task of found) if (task && typeof task === "object") options.onTask(task as Task, claimed);
  // complete_task with `next`: the task claimed next is the caller's, whatever the call.
  if (value.next && typeof value.next === "object") options.onTask(value.next as Task, true);
}

/** The HTTP transport's lease renewal: best effort — the call's own answer stands either way. */
async function renewIfHeld(id: string, value: Record<string, unknown>, options: McpOptions) {
  try {
    const task = (value.task as Task | undefined) ?? (await options.client.getTask(id));
    if (task.owner?.id !== options.renewFor || (task.status !== "claimed" && task.status !== "started")) return;
    const renewed = await options.client.heartbeat(task);
    if (value.task) value.task = renewed;
  } catch {
    // A lease already lost, a race with another call: the next call says so.
  }
}
