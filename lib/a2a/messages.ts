import type { Message } from "@a2a-js/sdk";
import { ContentTypeNotSupportedError } from "@a2a-js/sdk/errors";
import { LIMITS } from "@/lib/limits";
import { DEFAULT_QUEUE } from "@/lib/tasks";
import { malformed } from "./errors";

// An A2A message as the engine's input (docs/a2a.md#sending-a-task): its text parts are the
// task's words (the first line, cut to a title's length, the title; all of it the
// description), its data parts the payload, `metadata.queue` the queue. What the engine
// refuses (too long, an unknown queue) it refuses in its own words.

function textOf(message: Message): string {
  return message.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])).join("\n");
}

function payloadOf(message: Message): Record<string, unknown> | undefined {
  const data = message.parts.flatMap((part) => (part.content?.$case === "data" ? [part.content.value as unknown] : []));
  if (data.length === 0) return undefined;
  // One object is the payload as sent; several (or other JSON) are kept in order under `parts`.
  if (data.length === 1 && data[0] !== null && typeof data[0] === "object" && !Array.isArray(data[0])) return data[0] as Record<string, unknown>;
  return { parts: data };
}

function checked(message: Message | undefined): Message {
  if (!message) throw malformed("SendMessage needs a message");
  if (!message.messageId) throw malformed("A message needs a messageId: a retry with the same one finds the task the first created");
  const other = message.parts.find((part) => part.content?.$case === "raw" || part.content?.$case === "url");
  if (other) throw new ContentTypeNotSupportedError({ message: "File parts are not accepted: send text and data parts (a file as a link in the text)", metadata: { code: "invalid_request" } });
  return message;
}

export function createFrom(raw: Message | undefined) {
  const message = checked(raw);
  const text = textOf(message).trim();
  if (!text) throw malformed("A message needs a text part: its first line is the task's title");
  const firstLine = text.split(/\r?\n/, 1)[0]!.trim();
  const title = firstLine.length > LIMITS.title ? `${firstLine.slice(0, LIMITS.title - 1)}…` : firstLine;
  const queue = message.metadata?.queue;
  if (queue !== undefined && typeof queue !== "string") throw malformed("metadata.queue must be a queue's name");
  return {
    messageId: message.messageId,
    task: { title, description: text, queue: queue ?? DEFAULT_QUEUE, payload: payloadOf(message) },
  };
}

/** A reply's text is the answer; when it is one of the question's choices, that choice. */
export function replyFrom(raw: Message, choices: string[]): { text: string; choice?: string } {
  const text = textOf(checked(raw)).trim();
  if (!text) throw malformed("A reply needs a text part: it is the answer to the task's question");
  return choices.includes(text) ? { text, choice: text } : { text };
}
