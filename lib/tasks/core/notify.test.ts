import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { Database } from "@/db/client";
import { claimBatch, claimNext, NOTIFY_CHANNEL, start, type ActorRef } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, queueEvents, taskRow } from "@/test/inspect";
import { listen, type Listener } from "@/test/listener";

let f: EngineFixture;
let listener: Listener;
let sender: Database;
let amal: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  listener = await listen(f.database.url, NOTIFY_CHANNEL);
  sender = f.database.connect({ max: 1 });
  amal = await f.actor("Amal");
});
afterAll(async () => {
  await listener?.close();
  await f?.close();
});

let markers = 0;
/**
 * Sends a marker notification in its own (autocommit) transaction and waits for it.
 * Notifications are delivered in commit order, so anything committed before the marker
 * has arrived by the time the marker does.
 */
async function marker(): Promise<string> {
  const name = `marker-${++markers}`;
  await sender.client`SELECT pg_notify(${NOTIFY_CHANNEL}, ${name})`;
  return listener.waitFor(name);
}

/** Waits until everything committed so far has been delivered, then empties the inbox. */
async function settle(): Promise<void> {
  await marker();
  listener.clear();
}

class Rollback extends Error {}

beforeEach(settle);

describe("NOTIFY", () => {
  test("arrives only after commit, carrying the ids of the events written", async () => {
    const queue = "notify-commit";
    const task = await f.task("watched", { queue });
    await settle();

    await f.db.transaction(async (tx) => {
      const result = await claimNext.run(tx, { queue }, { actor: amal, clock: f.clock });
      expect(result.ok && result.value?.id).toBe(task.id);
      const sent = await marker();
      // The claim's transaction is still open: its notification must not be here yet.
      expect(listener.received).toEqual([sent]);
    });

    const note = await listener.waitFor((p) => p.startsWith("{"));
    expect(listener.received).toHaveLength(2);
    const [claimed] = await queueEvents(f.db, queue, "claimed");
    expect(JSON.parse(note)).toEqual({ first: claimed!.id.toString(), last: claimed!.id.toString(), count: 1 });
  });

  test("never arrives for a rolled-back transition", async () => {
    const queue = "notify-rollback";
    const task = await f.task("watched", { queue });
    await settle();

    await expect(
      f.db.transaction(async (tx) => {
        const result = await claimNext.run(tx, { queue }, { actor: amal, clock: f.clock });
        expect(result.ok && result.value?.id).toBe(task.id);
        throw new Rollback("changed my mind");
      }),
    ).rejects.toBeInstanceOf(Rollback);
    const sent = await marker();

    expect(listener.received).toEqual([sent]);
    expect(await taskRow(f.db, task.id)).toMatchObject({ status: "queued", ownerId: null, version: 1 });
    expect(await eventTypes(f.db, task.id)).toEqual(["created"]);
  });

  test("a refused call writes nothing and notifies nothing", async () => {
    const queue = "notify-refused";
    const task = await f.task("watched", { queue });
    const bilal = await f.actor("Bilal");
    await f.must(claimNext, { queue }, amal);
    await settle();

    failure(await f.run(start, { taskId: task.id, version: 2 }, bilal), "not_owner");
    const sent = await marker();
    expect(listener.received).toEqual([sent]);
  });

  test("a batch claim is one transaction and one notification for all its events", async () => {
    const queue = "notify-batch";
    for (const title of ["a", "b", "c"]) await f.task(title, { queue });
    await settle();

    expect(await f.must(claimBatch, { queue, limit: 3 }, amal)).toHaveLength(3);
    const sent = await marker();
    expect(listener.received).toHaveLength(2);
    const claimed = await queueEvents(f.db, queue, "claimed");
    expect(JSON.parse(listener.received[0]!)).toEqual({
      first: claimed[0]!.id.toString(), last: claimed[2]!.id.toString(), count: 3,
    });
    expect(listener.received[1]).toBe(sent);
  });
});
