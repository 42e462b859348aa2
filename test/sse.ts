// A Server-Sent Events client for tests: plain fetch plus a streaming parser that follows
// the WHATWG event-stream rules (any line ending, `:` comments, `id`/`event`/`data`/`retry`
// fields, dispatch on a blank line, a message without data is not dispatched).

import type { LiveEvent } from "@/components/realtime/invalidate";

export interface SseMessage {
  /** The last event ID when this message was dispatched: the stream's resume cursor. */
  id: string;
  event: string;
  data: string;
  /** performance.now() when the parser dispatched it. */
  receivedAt: number;
}

export type SseItem =
  | ({ kind: "message" } & SseMessage)
  | { kind: "comment"; text: string; receivedAt: number }
  /** A dispatch without data that set a new last event ID (an EventSource keeps it for reconnecting). */
  | { kind: "id"; id: string; receivedAt: number };

/** Parses an event stream as it arrives; ends when the body ends (or is aborted). */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder();
  let buffer = "";
  let idBuffer = "";
  let lastEventId = "";
  let event = "";
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const match = /\r\n|\n|\r/.exec(buffer);
        // A lone \r at the end may be the first half of \r\n: wait for more.
        if (!match || (match[0] === "\r" && match.index === buffer.length - 1 && !done)) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === "") {
          // Dispatch: the last event ID is set even when there is no data to deliver.
          const newId = idBuffer !== lastEventId;
          lastEventId = idBuffer;
          if (data.length > 0) {
            yield { kind: "message", id: lastEventId, event: event || "message", data: data.join("\n"), receivedAt: performance.now() };
          } else if (newId) {
            yield { kind: "id", id: lastEventId, receivedAt: performance.now() };
          }
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) {
          yield { kind: "comment", text: line.slice(1).replace(/^ /, ""), receivedAt: performance.now() };
          continue;
        }
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const raw = colon === -1 ? "" : line.slice(colon + 1);
        const value = raw.startsWith(" ") ? raw.slice(1) : raw;
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id" && !value.includes("\0")) idBuffer = value;
        // `retry` and unknown fields: nothing a test needs.
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The `data:` of an `event: task` message: the browser's own type for it. */
export type StreamEvent = LiveEvent;

export interface SseOptions {
  token?: string;
  /** Sent as the Last-Event-ID header, as a reconnecting EventSource does. */
  lastEventId?: string;
  headers?: Record<string, string>;
}

export interface SseClient {
  response: Response;
  /** `event: task` messages received so far, in order. */
  messages: SseMessage[];
  comments: string[];
  /** What an EventSource would send as Last-Event-ID now (undefined: none yet). */
  lastEventId(): string | undefined;
  /** Parsed `data:` of every message so far. */
  events(): StreamEvent[];
  /** Waits (bounded) until `check` holds, failing with what was received when it does not. */
  until(check: (messages: SseMessage[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream (or close() aborted it). */
  ended: Promise<void>;
  /** Aborts the request: the server sees the client go away. */
  close(): void;
}

/**
 * Opens `url` as an event stream and starts collecting in the background. Fails when the
 * response is not a 200 text/event-stream (use plain fetch to test those).
 */
export async function openEventStream(url: string, options: SseOptions = {}): Promise<SseClient> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status !== 200 || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const text = await response.text().catch(() => "");
    throw new Error(`expected an event stream from ${url}, got ${response.status}: ${text}`);
  }
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  let failure: unknown = null;
  let lastEventId: string | undefined;
  const ended = (async () => {
    try {
      for await (const item of parseEventStream(response.body!)) {
        if (item.kind === "comment") comments.push(item.text);
        else if (item.kind === "id") lastEventId = item.id;
        else {
          messages.push(item);
          lastEventId = item.id;
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) failure = error;
    }
  })();
  return {
    response,
    messages,
    comments,
    lastEventId: () => (lastEventId === "" ? undefined : lastEventId),
    events: () => messages.map((m) => JSON.parse(m.data) as StreamEvent),
    async until(check, timeoutMs = 30_000) {
      const deadline = performance.now() + timeoutMs;
      while (!check(messages)) {
        if (failure) throw new Error(`event stream failed: ${String(failure)}`);
        if (performance.now() > deadline) {
          throw new Error(`timed out after ${timeoutMs} ms with ${messages.length} messages; last: ${messages.at(-1)?.id ?? "none"}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    ended,
    close: () => controller.abort(),
  };
}
