import { A2A_VERSION_HEADER, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from "@a2a-js/sdk";
import { A2A_ERROR_CODE } from "@a2a-js/sdk/errors";
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, validateVersion } from "@a2a-js/sdk/server";
import { agentCard, openQueues } from "@/lib/a2a/card";
import { ClaimboardA2AHandler } from "@/lib/a2a/handler";
import { readJsonBody } from "@/lib/http/body";
import type { Endpoint } from "@/lib/http/endpoints";
import { handle } from "@/lib/http/handler";
import { otherMethods } from "@/lib/http/routes";
import { issuer } from "@/lib/oauth/config";
import { tokenRoles, WORKERS } from "@/lib/tasks/model";

// POST /api/a2a: A2A 1.0 over JSON-RPC (docs/a2a.md). The API's guard first — the same
// bearer tokens, failed-auth throttle, per-token rate limit; agent and supervisor tokens
// (an observer's token is refused, as is a claim token: it works only on its task) — then
// the SDK's JSON-RPC transport handler over ClaimboardA2AHandler, whose every method is
// an engine call as the caller.

const a2a: Endpoint = {
  operationId: "a2a", method: "POST", path: "/api/a2a", summary: "Agent2Agent protocol 1.0 (JSON-RPC)",
  roles: tokenRoles(WORKERS), success: { status: 200, description: "JSON-RPC answers, or an SSE stream of them" }, errors: [413],
};

type JsonRpcError = { code: number; message: string };
const rpcError = (error: JsonRpcError, status = 200, id: unknown = null) =>
  Response.json({ jsonrpc: "2.0", id, error }, { status, headers: { "Cache-Control": "no-store", ...(status === 413 ? { Connection: "close" } : {}) } });

export const POST = handle(a2a, async ({ request, principal, db, run }) => {
  const read = await readJsonBody(request);
  if (!read.ok) {
    // Nothing is read past the limit and nothing is written: the error in JSON-RPC's shape.
    if (read.error.code === "payload_too_large") return rpcError({ code: A2A_ERROR_CODE.INVALID_REQUEST, message: read.error.message }, 413);
    return rpcError({ code: A2A_ERROR_CODE.PARSE_ERROR, message: read.error.message });
  }
  const card = agentCard(issuer(request), await openQueues(db));
  const handler = new ClaimboardA2AHandler({ db, actorId: principal!.actor.id, run, card });
  const id = (read.value as { id?: unknown } | null)?.id ?? null;
  const context = defaultServerCallContextBuilder({
    extensions: undefined, user: undefined, headers: {},
    requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? undefined,
  });
  try {
    validateVersion(context.requestedVersion, card, "JSONRPC");
  } catch (error) {
    return rpcError(JsonRpcTransportHandler.mapToJSONRPCError(error), 200, typeof id === "string" || typeof id === "number" ? id : null);
  }
  const answer = await new JsonRpcTransportHandler(handler).handle(read.value as Record<string, unknown>, context);
  if (!(Symbol.asyncIterator in answer)) return Response.json(answer, { headers: { "Cache-Control": "no-store" } });
  return streamed(answer, id);
});

/**
 * A streaming method's answers as server-sent events. A refusal before the first event (an
 * unknown task, a bad message) is a plain JSON-RPC answer, as the SDK's own server sends it.
 */
async function streamed(events: AsyncGenerator<unknown, void, undefined>, id: unknown): Promise<Response> {
  const errorOf = (error: unknown) => ({ jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
  let first: IteratorResult<unknown, void>;
  try {
    first = await events.next();
  } catch (error) {
    return Response.json(errorOf(error), { headers: { "Cache-Control": "no-store" } });
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!first.done) controller.enqueue(encoder.encode(formatSSEEvent(first.value)));
    },
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(errorOf(error))));
        controller.close();
      }
    },
    async cancel() {
      await events.return(undefined);
    },
  });
  return new Response(body, { headers: { ...SSE_HEADERS } });
}

// JSON-RPC is POST only; every other method is the API's 405.
const refused = otherMethods(a2a);
export const GET = refused.GET;
export const PUT = refused.PUT;
export const PATCH = refused.PATCH;
export const DELETE = refused.DELETE;
