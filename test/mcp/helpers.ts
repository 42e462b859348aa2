import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { scriptNodeArgs } from "@/test/cli";
import type { HttpFixture, WireTask } from "@/test/http/helpers";
import { expectNoLeak, expectTask } from "@/test/http/helpers";

// The SDK's own Client over either transport: `npm run mcp`'s script as a child process
// (stdio, talking HTTP to the test server), or POST /api/mcp of the test server itself.

export type TransportName = "stdio" | "http";

export interface McpSession {
  client: Client;
  /** What the MCP process wrote to stderr (stdio; "" over HTTP, whose log is the server's). */
  stderr(): string;
  /** The MCP process's id (stdio). */
  pid?: number;
  close(): Promise<void>;
}

export async function connect(
  f: HttpFixture, transport: TransportName, token: string, headers: Record<string, string> = {}, env: Record<string, string> = {},
): Promise<McpSession> {
  const client = new Client({ name: "claimboard-test", version: "1.0.0" });
  if (transport === "http") {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${f.server.url}/api/mcp`), {
      requestInit: { headers: { ...headers, Authorization: `Bearer ${token}` } },
    }));
    return { client, stderr: () => "", close: () => client.close() };
  }
  const stdio = new StdioClientTransport({
    command: process.execPath,
    args: [...scriptNodeArgs, "scripts/mcp.ts"],
    env: { PATH: process.env.PATH ?? "", CLAIMBOARD_URL: f.server.url, CLAIMBOARD_TOKEN: token, ...env },
    stderr: "pipe",
  });
  let stderr = "";
  stdio.stderr!.on("data", (chunk) => (stderr += chunk));
  await client.connect(stdio);
  return { client, stderr: () => stderr, pid: stdio.pid ?? undefined, close: () => client.close() };
}

/** The JSON a result's text carries (the API's body), checked to match structuredContent. */
export function resultJson(result: CallToolResult): Record<string, unknown> {
  // The data, and (issue 25) when it holds others' text, a notice marking it as data.
  expect(result.content.length).toBeGreaterThanOrEqual(1);
  expect(result.content.length).toBeLessThanOrEqual(2);
  if (result.content.length === 2) expect((result.content[1] as { text: string }).text).toMatch(/data, not instructions/);
  const [item] = result.content;
  expect(item!.type).toBe("text");
  const text = (item as { text: string }).text;
  expectNoLeak(text);
  const json = JSON.parse(text) as Record<string, unknown>;
  if (!result.isError) expect(result.structuredContent).toEqual(json);
  return json;
}

export async function call(session: McpSession, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful call's `{task}`, checked as the task object of docs/contract.md#the-task-object. */
export async function taskOf(session: McpSession, name: string, args: Record<string, unknown>): Promise<WireTask> {
  const result = await call(session, name, args);
  const json = resultJson(result);
  expect(result.isError ?? false, JSON.stringify(json)).toBe(false);
  return expectTask(json.task);
}

/** A refusal: an error result carrying the API's code (and message). */
export async function refusalOf(session: McpSession, name: string, args: Record<string, unknown>, code: string) {
  const result = await call(session, name, args);
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const json = resultJson(result) as { error: { code: string; message: string; field?: string; task?: unknown } };
  expect(Object.keys(json)).toEqual(["error"]);
  expect(json.error.code, json.error.message).toBe(code);
  expect(json.error.message.length).toBeGreaterThan(0);
  if (json.error.task) expectTask(json.error.task);
  return json.error;
}

/**
 * The task's row and its events, as one string: equal before and after means nothing
 * changed. Not claim_rejected: the API records a lost claim (the refusal itself).
 */
export async function taskDigest(f: HttpFixture, id: string): Promise<string> {
  const [row] = await f.database.client<{ digest: string }[]>`
    SELECT (SELECT t::text FROM tasks t WHERE id = ${id}::bigint)
      || (SELECT coalesce(string_agg(e::text, '|' ORDER BY id), '') FROM task_events e
          WHERE task_id = ${id}::bigint AND type <> 'claim_rejected') AS digest`;
  return row!.digest;
}

export async function eventTypes(f: HttpFixture, id: string): Promise<{ type: string; actor: string; payload: Record<string, unknown> }[]> {
  return f.database.client`
    SELECT e.type, a.name AS actor, e.payload FROM task_events e JOIN actors a ON a.id = e.actor_id
    WHERE e.task_id = ${id}::bigint ORDER BY e.id`;
}
