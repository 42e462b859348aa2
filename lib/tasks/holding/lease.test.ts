import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addComment, askQuestion, claim, readLease, renew, start, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";

// Why is this held? (docs/leases.md): GET /tasks/{id}/lease's read, state by state.

let f: EngineFixture;
let bot: ActorRef;
let maria: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  bot = await f.actor("import-bot-2", "agent");
  maria = await f.actor("Maria");
  await f.queue("leases", { leaseSeconds: 60, maxRenewalsWithoutProgress: 5 });
});
afterAll(async () => {
  await f?.close();
});

async function started(): Promise<Task> {
  const task = await f.task("import", { queue: "leases" });
  const claimed = await f.must(claim, { taskId: task.id, version: task.version }, bot);
  return f.must(start, { taskId: claimed.id, version: claimed.version }, bot);
}
const lease = async (id: string) => (await readLease(f.db, f.clock, id))!;

describe("readLease", () => {
  test("free, held (renewals, progress, renewals without progress, unread), lapsed, parked", async () => {
    const queued = await f.task("waiting", { queue: "leases" });
    expect(await lease(queued.id)).toMatchObject({ state: "free", holder: null, renewals: 0, reasons: ["queued"] });

    const task = await started();
    await f.must(renew, { taskId: task.id, version: task.version, progress: "row 1" }, bot);
    const progressAt = f.clock.time.toISOString();
    f.clock.advance(20);
    await f.must(renew, { taskId: task.id, version: task.version }, bot);
    f.clock.advance(20);
    await f.must(renew, { taskId: task.id, version: task.version }, bot);
    await f.must(addComment, { taskId: task.id, body: "Skip the archived rows" }, maria);
    const held = await lease(task.id);
    expect(held).toMatchObject({
      state: "held", holder: { id: bot.id, name: "import-bot-2" }, attempt: 1, renewals: 3,
      renewalsWithoutProgress: 2, maxRenewalsWithoutProgress: 5,
      reasons: ["held", "renewing_without_progress", "unread_input"],
      unread: [{ by: { name: "Maria" }, text: "Skip the archived rows" }],
    });
    expect(held.lastProgressAt?.toISOString()).toBe(progressAt);

    f.clock.advance(61);
    expect(await lease(task.id)).toMatchObject({ state: "lapsed", holder: { id: bot.id }, reasons: ["lease_lapsed", "renewing_without_progress", "unread_input"] });

    const asking = await started();
    await f.must(askQuestion, { taskId: asking.id, version: asking.version, question: "Refund or credit?" }, bot);
    expect(await lease(asking.id)).toMatchObject({ state: "parked", holder: { id: bot.id }, question: { text: "Refund or credit?" }, reasons: ["awaiting_answer"] });
  });
});
