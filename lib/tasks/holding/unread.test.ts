import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  acknowledge, addComment, claim, complete, foldEvents, recordEffect, release, renew, start, taskHistory, type ActorRef, type Task,
} from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, failure, taskRow } from "@/test/inspect";

// Input read before done (docs/leases.md): others' comments on a held task are unread for the
// holder until acknowledged; complete and new effect intents wait for the ack.

let f: EngineFixture;
let bot: ActorRef;
let other: ActorRef;
let maria: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  bot = await f.actor("refund-bot", "agent");
  other = await f.actor("audit-bot", "agent");
  maria = await f.actor("Maria");
});
afterAll(async () => {
  await f?.close();
});

async function startedBy(actor: ActorRef, title = "Refund order 1042"): Promise<Task> {
  const task = await f.task(title, { queue: "refunds" });
  const claimed = await f.must(claim, { taskId: task.id, version: task.version }, actor);
  return f.must(start, { taskId: claimed.id, version: claimed.version }, actor);
}
const comment = (task: Task, body: string, by: ActorRef) => f.must(addComment, { taskId: task.id, body }, by);

describe("unread input", () => {
  test("a person's comment blocks complete until acked; the ack is an event naming the comment; the fold replays it", async () => {
    const task = await startedBy(bot);
    const said = await comment(task, "Credit, not refund: the customer asked", maria);

    const beat = await f.must(renew, { taskId: task.id, version: task.version }, bot);
    expect(beat.unread).toEqual([{ eventId: said.id, by: { id: maria.id, name: "Maria", kind: "user" }, text: "Credit, not refund: the customer asked", at: expect.any(Date) }]);

    const refused = failure(await f.run(complete, { taskId: task.id, version: task.version }, bot), "unread_human_input");
    expect(refused.message).toContain(said.id);
    expect(refused.message).toContain("Maria");
    expect(refused.task?.unread).toHaveLength(1);
    expect((await taskRow(f.db, task.id)).status).toBe("started");
    failure(await f.run(recordEffect, { taskId: task.id, version: task.version, name: "refund" }, bot), "unread_human_input");

    const acked = await f.must(acknowledge, { taskId: task.id, version: task.version, eventId: said.id }, bot);
    expect(acked).toMatchObject({ version: task.version, unread: [] });
    expect((await eventsOf(f.db, task.id)).at(-1)).toMatchObject({ type: "acknowledged", actorId: bot.id, payload: { eventId: said.id, version: task.version } });
    // A retry of the same ack writes nothing more.
    await f.must(acknowledge, { taskId: task.id, version: task.version, eventId: said.id }, bot);
    expect((await eventsOf(f.db, task.id)).filter((e) => e.type === "acknowledged")).toHaveLength(1);

    await f.must(complete, { taskId: task.id, version: task.version }, bot);
    const { id: _id, blockedBy: _b, ...row } = await taskRow(f.db, task.id);
    expect(foldEvents(await taskHistory(f.db, task.id))).toEqual(row);
  });

  test("the holder's own comments are never unread; another agent's are", async () => {
    const task = await startedBy(bot);
    await comment(task, "note to self", bot);
    expect((await f.must(renew, { taskId: task.id, version: task.version }, bot)).unread).toEqual([]);
    const said = await comment(task, "I checked the ledger", other);
    expect((await f.must(renew, { taskId: task.id, version: task.version }, bot)).unread?.map((u) => u.eventId)).toEqual([said.id]);
  });

  test("an ack covers what it names: a comment after it stays unread", async () => {
    const task = await startedBy(bot);
    const first = await comment(task, "first", maria);
    const second = await comment(task, "second", maria);
    const acked = await f.must(acknowledge, { taskId: task.id, version: task.version, eventId: first.id }, bot);
    expect(acked.unread?.map((u) => u.eventId)).toEqual([second.id]);
    failure(await f.run(complete, { taskId: task.id, version: task.version }, bot), "unread_human_input");
    await f.must(acknowledge, { taskId: task.id, version: task.version, eventId: second.id }, bot);
    await f.must(complete, { taskId: task.id, version: task.version }, bot);
  });

  test("an ack must name a comment of the task, and only the holder acks", async () => {
    const task = await startedBy(bot);
    const said = await comment(task, "hello", maria);
    expect(failure(await f.run(acknowledge, { taskId: task.id, version: task.version, eventId: "999999" }, bot), "invalid_request").field).toBe("eventId");
    failure(await f.run(acknowledge, { taskId: task.id, version: task.version, eventId: said.id }, other), "not_owner");
  });

  test("input left unread by one attempt is the next holder's to read: its claim carries it", async () => {
    const task = await startedBy(bot);
    const said = await comment(task, "Hold on: the customer called", maria);
    const released = await f.must(release, { taskId: task.id, version: task.version }, bot);
    const claimed = await f.must(claim, { taskId: task.id, version: released.version }, other);
    expect(claimed.unread?.map((u) => u.eventId)).toEqual([said.id]);
    // A comment on a task nobody holds marks nothing.
    const queued = await f.task("nobody holds it", { queue: "refunds" });
    await comment(queued, "for whoever takes it", maria);
    const taken = await f.must(claim, { taskId: queued.id, version: queued.version }, bot);
    expect(taken.unread).toEqual([]);
  });
});
