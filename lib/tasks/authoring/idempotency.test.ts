import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTaskOnce, perform, type ActorRef } from "@/lib/tasks";
import { independentClients } from "@/test/clients";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { failure, queueEvents, rowCounts } from "@/test/inspect";

let f: EngineFixture;
let agent: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("agent-7", "agent");
});
afterAll(async () => {
  await f?.close();
});

describe("idempotencyKey", () => {
  test("the same key and fields find the first task and write nothing; other fields are a conflict", async () => {
    const queue = await f.queue("idem");
    const input = { title: "Send invoice 7", queue, payload: { b: 1, a: [1, 2] }, idempotencyKey: "invoice-7" };
    const first = await f.must(createTaskOnce, input, agent);
    expect(first.created).toBe(true);
    const counts = await rowCounts(f.db);
    // Key order in the payload is not a difference (jsonb does not keep it).
    const again = await f.must(createTaskOnce, { ...input, payload: { a: [1, 2], b: 1 } }, agent);
    expect(again).toEqual({ created: false, task: first.task });
    expect(await rowCounts(f.db)).toEqual(counts);

    const other = failure(await f.run(createTaskOnce, { ...input, priority: 5 }, agent), "idempotency_conflict");
    expect(other).toMatchObject({ field: "idempotencyKey", task: { id: first.task.id } });
    expect(other.message).toMatch(/priority/);
    // The same key in another queue is another task.
    expect((await f.must(createTaskOnce, { ...input, queue: await f.queue("idem-2") }, agent)).created).toBe(true);
    expect(failure(await f.run(createTaskOnce, { ...input, idempotencyKey: "k".repeat(201) }, agent), "invalid_request").field)
      .toBe("idempotencyKey");
    expect(failure(await f.run(createTaskOnce, { ...input, idempotencyKey: "" }, agent), "invalid_request").field).toBe("idempotencyKey");
  });

  test("64 concurrent identical creates make one task and one created event", async () => {
    const queue = await f.queue("idem-stampede");
    const clients = await independentClients(f.database, 32);
    try {
      const input = { title: "Once", queue, idempotencyKey: "once", dependsOn: [] };
      const results = await Promise.all(Array.from({ length: 64 }, (_, i) =>
        perform(createTaskOnce, input, { db: clients[i % 32]!.db, actor: agent, clock: f.clock })));
      const values = results.map((r) => (r.ok ? r.value : null));
      expect(values.every((v) => v !== null)).toBe(true);
      expect(new Set(values.map((v) => v!.task.id)).size).toBe(1);
      expect(values.filter((v) => v!.created)).toHaveLength(1);
      expect(await queueEvents(f.db, queue, "created")).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((c) => c.client.end({ timeout: 5 })));
    }
  });
});
