import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ClaimboardApiError, type ClaimboardClient, type Task } from "@/lib/client";

// resources/subscribe for the task resource, where the transport has a stream to send
// notifications/resources/updated on: the stdio server (its process lives as long as the
// client's connection). /api/mcp is stateless and JSON-answering, so it declares no
// subscriptions. A subscribed task is read every `everyMs` through the same typed client
// the tools use; a change of version, status, owner, lease or progress sends the update,
// and the client reads the resource again. Ending the connection ends the polling.

const TASK_URI = /^claimboard:\/\/tasks\/([1-9][0-9]{0,18})$/;

const fingerprint = (task: Task) => JSON.stringify([task.version, task.status, task.owner?.id ?? null, task.leaseUntil, task.updatedAt, task.progress ?? null]);

export function enableTaskSubscriptions(server: McpServer, client: ClaimboardClient, options: { everyMs?: number; log?: (line: string) => void } = {}) {
  const everyMs = options.everyMs ?? 2000;
  const watched = new Map<string, string>();
  let timer: ReturnType<typeof setInterval> | null = null;
  server.server.registerCapabilities({ resources: { subscribe: true } });

  const read = async (uri: string) => {
    const id = TASK_URI.exec(uri)?.[1];
    if (!id) throw new McpError(ErrorCode.InvalidParams, `Not a task resource: ${uri} (claimboard://tasks/{id})`);
    try {
      return await client.getTask(id);
    } catch (error) {
      if (error instanceof ClaimboardApiError) throw new McpError(ErrorCode.InvalidParams, `${error.code}: ${error.message}`);
      throw new McpError(ErrorCode.InternalError, "Internal error");
    }
  };

  const poll = async () => {
    for (const [uri, seen] of watched) {
      try {
        const now = fingerprint(await client.getTask(TASK_URI.exec(uri)![1]!));
        if (now !== seen && watched.has(uri)) {
          watched.set(uri, now);
          await server.server.sendResourceUpdated({ uri });
        }
      } catch {
        // Unreachable for a moment, or rate limited: the next round tries again.
      }
    }
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };

  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const task = await read(request.params.uri);
    watched.set(request.params.uri, fingerprint(task));
    timer ??= setInterval(() => void poll(), everyMs);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    watched.delete(request.params.uri);
    if (watched.size === 0) stop();
    return {};
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    stop();
    previous?.();
  };
}
