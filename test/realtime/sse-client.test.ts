import { expect, test } from "vitest";
import { parseEventStream, type SseItem } from "@/test/sse";

// The test client's parser, against the event-stream rules the server's output relies on.

async function parse(chunks: string[]): Promise<SseItem[]> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const items: SseItem[] = [];
  for await (const item of parseEventStream(body)) items.push(item);
  return items.map((item) => ({ ...item, receivedAt: 0 }));
}

test("messages, comments and ids, split anywhere across chunks and with any line ending", async () => {
  const text = "retry: 1000\nid: 1:0\n\n: connected\r\nid: 5:7\revent: task\r\ndata: {\"a\":1}\n\n:keepalive\n\ndata: x\ndata: y\n\n";
  const expected = [
    { kind: "id", id: "1:0", receivedAt: 0 },
    { kind: "comment", text: "connected", receivedAt: 0 },
    { kind: "message", id: "5:7", event: "task", data: '{"a":1}', receivedAt: 0 },
    { kind: "comment", text: "keepalive", receivedAt: 0 },
    // The id persists; an event without `event:` is a "message".
    { kind: "message", id: "5:7", event: "message", data: "x\ny", receivedAt: 0 },
  ];
  expect(await parse([text])).toEqual(expected);
  expect(await parse([...text])).toEqual(expected);
  // \r\n split between chunks is one line ending, not two.
  const at = text.indexOf("\r\n") + 1;
  expect(await parse([text.slice(0, at), text.slice(at)])).toEqual(expected);
});

test("an unfinished message at the end of the stream is not dispatched", async () => {
  expect(await parse(["id: 1:1\ndata: complete\n\nid: 1:2\ndata: cut off"])).toEqual([
    { kind: "message", id: "1:1", event: "message", data: "complete", receivedAt: 0 },
  ]);
});

test("multi-byte characters split across chunks survive", async () => {
  const bytes = new TextEncoder().encode("data: café ☕\n\n");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
      controller.close();
    },
  });
  const items: SseItem[] = [];
  for await (const item of parseEventStream(body)) items.push(item);
  expect(items).toMatchObject([{ kind: "message", data: "café ☕" }]);
});
