import { Role, type Message, type Part } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { randomUUID } from "node:crypto";
import type { HttpFixture } from "@/test/http/helpers";

// The A2A SDK's own client against the test server: it reads the agent card at
// /.well-known/agent-card.json, picks the JSON-RPC interface the card names, and sends the
// token as a bearer on every call (the card itself is public).

export async function a2aClient(f: HttpFixture, token: string): Promise<Client> {
  const authed: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
    // The board's work takes people's time: SendMessage answers at once, the client follows.
    clientConfig: { polling: true },
  });
  return factory.createFromUrl(f.server.url);
}

export const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" });
export const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "" });

export function userMessage(parts: Part[], options: { taskId?: string; queue?: string; messageId?: string } = {}): Message {
  return {
    messageId: options.messageId ?? randomUUID(),
    contextId: "",
    taskId: options.taskId ?? "",
    role: Role.ROLE_USER,
    parts,
    metadata: options.queue ? { queue: options.queue } : undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export const send = (message: Message) => ({ tenant: "", message, configuration: undefined, metadata: undefined });

/** A raw JSON-RPC call, for what the SDK's client would never send. */
export async function rpc(f: HttpFixture, token: string | null, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${f.server.url}/api/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0", ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  const raw = await response.text();
  let json: { error?: { code: number; message: string; data?: { metadata?: { code?: string } }[] }; result?: unknown } | undefined;
  try {
    json = JSON.parse(raw);
  } catch {
    json = undefined;
  }
  return { status: response.status, raw, json };
}
