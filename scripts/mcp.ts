// `npm run -s mcp`: Claimboard's MCP server over stdio, for an AI agent's MCP client
// (CLAIMBOARD_URL, CLAIMBOARD_TOKEN). It talks to the server over HTTP through the typed
// client, keeps the leases its caller holds alive while the client stays connected, and
// exits when stdin closes — leaving those leases to lapse, as a crashed agent's do.
// stdout is the protocol: every diagnostic goes to stderr, and never the token.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ClaimboardApiError, ClaimboardClient } from "../lib/client";
import { LeaseKeeper } from "../lib/mcp/leases";
import { ClaimClients, parseClaimOps } from "../lib/mcp/claim-clients";
import { probeRole, publishedRoles } from "../lib/mcp/role";
import { createMcpServer } from "../lib/mcp/server";
import { enableTaskSubscriptions } from "../lib/mcp/subscriptions";

const log = (line: string) => console.error(line);

async function main(): Promise<number | null> {
  const token = process.env.CLAIMBOARD_TOKEN;
  const url = process.env.CLAIMBOARD_URL || "http://localhost:3000";
  if (!token) {
    log("error: CLAIMBOARD_TOKEN is required (make one with `npm run cli -- token create --name NAME`)");
    return 2;
  }
  if (!URL.canParse(url)) {
    log(`error: CLAIMBOARD_URL is not a URL: ${JSON.stringify(url)}`);
    return 2;
  }
  const client = new ClaimboardClient({ baseUrl: url, token });
  // CLAIMBOARD_CLAIM_TOKENS=1: each held task's calls go with a claim token of its attempt (docs/mcp.md).
  const scoped = ["1", "true", "yes"].includes((process.env.CLAIMBOARD_CLAIM_TOKENS ?? "").toLowerCase());
  const ops = parseClaimOps(process.env.CLAIMBOARD_CLAIM_OPS);
  if (!ops) {
    log("error: CLAIMBOARD_CLAIM_OPS must list ops from read, progress, effects, complete, fail, release, comment, ask (comma-separated)");
    return 2;
  }
  const claims = scoped ? new ClaimClients(client, (claimToken) => new ClaimboardClient({ baseUrl: url, token: claimToken }), ops, log) : undefined;
  let role: Awaited<ReturnType<typeof probeRole>>;
  try {
    role = await probeRole(client);
  } catch (error) {
    if (error instanceof ClaimboardApiError && error.code === "unauthorized") {
      log(`error: ${url} does not accept this token (unknown or revoked): ${error.message}`);
      return 1;
    }
    log(`[mcp] could not ask ${url} about the token (${error instanceof Error ? error.message : String(error)}); listing every tool`);
    role = null;
  }

  // A renewal refused for the token itself (revoked, expired, its maker disabled): the session is over.
  const keeper = new LeaseKeeper(client, log, () => leave("the server no longer accepts this token"));
  // Which tools the role is shown: the endpoints' roles as the API publishes them.
  const rolesOf = role === null ? undefined : await publishedRoles(url).catch((error: unknown) => {
    log(`[mcp] could not read ${url}'s OpenAPI document (${error instanceof Error ? error.message : String(error)}); listing every tool`);
    return undefined;
  });
  const server = createMcpServer({
    client,
    role,
    rolesOf,
    log,
    onTask: (task, claimed) => {
      claims?.observe(task, claimed);
      return claimed ? keeper.claimed(task) : keeper.observe(task);
    },
    claims,
  });
  // This process has a stream to its client: a subscribed task is followed (resources/subscribe).
  enableTaskSubscriptions(server, client, { log });
  const leave = (why: string) => {
    const left = keeper.heldIds;
    keeper.stop();
    log(`[mcp] ${why}; exiting${left.length ? ` (leases of task ${left.join(", ")} left to lapse)` : ""}`);
    process.exit(0);
  };
  process.stdin.once("end", () => leave("the client closed stdin"));
  process.stdin.once("close", () => leave("stdin closed"));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => leave(signal));
  await server.connect(new StdioServerTransport());
  log(`[mcp] claimboard MCP server on stdio for ${url} (${role === null ? "role unknown" : role === "observer" ? "read-only token" : "token may work"}${claims ? `; claim tokens per held task (${ops.join(", ")})` : ""})`);
  return null;
}

const code = await main();
if (code !== null) process.exit(code);
