import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, review, start, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { createWebhook, listDeliveries } from "./ops";
import { matchedBy } from "./matching";

// Which subscription an event matches: `completed` is also told of `approved` (the task
// reached done by review), written by the outbox's own statement; the delivery log names the
// subscription that matched.

let f: EngineFixture;
let sara: ActorRef;
let bot: ActorRef;
let chen: ActorRef;
beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = "1";
  process.env.NEXTAUTH_SECRET ??= "test-server-secret-for-webhooks";
  f = await engineFixture();
  sara = await f.actor("Sara");
  bot = await f.actor("Bot", "agent");
  chen = await f.actor("Chen");
  await f.queue("hooked-review", { review: "agents" });
  await f.queue("hooked-plain");
});
afterAll(async () => {
  await f?.close();
});

const at = (t: Task) => ({ taskId: t.id, version: t.version });
const hook = async (events: string[]) => (await f.must(createWebhook, { url: "http://127.0.0.1:9/hook", events } as never, sara)).webhook.id;
const log = async (id: string) => (await listDeliveries(f.db, { id }))!.deliveries.map((d) => [d.type, d.matched]).reverse();

async function worked(queue: string): Promise<Task> {
  const task = await f.task("watched", { queue });
  const started = await f.must(start, at(await f.must(claim, at(task), bot)), bot);
  return f.must(complete, { ...at(started), result: { summary: "done" } }, bot);
}

describe("webhook subscriptions", () => {
  test("matchedBy: the type itself first, then the type it is delivered under, then *", () => {
    expect(matchedBy(["completed"], "approved")).toBe("completed");
    expect(matchedBy(["approved", "completed"], "approved")).toBe("approved");
    expect(matchedBy(["*", "completed"], "approved")).toBe("completed");
    expect(matchedBy(["*"], "heartbeat")).toBe("*");
    expect(matchedBy(["completed"], "submitted")).toBeNull();
    expect(matchedBy(["approved"], "completed")).toBeNull();
  });

  test("a completed subscription is delivered approved (not submitted); the log says which subscription matched", async () => {
    const completed = await hook(["completed"]);
    const approved = await hook(["approved"]);
    const every = await hook(["*"]);
    const failed = await hook(["failed"]);

    const plain = await worked("hooked-plain");
    expect(plain.status).toBe("done");
    const inReview = await worked("hooked-review");
    expect(inReview.status).toBe("in_review");
    await f.must(review, { ...at(inReview), decision: "approve", digest: inReview.submission!.digest }, chen);

    expect(await log(completed)).toEqual([["completed", "completed"], ["approved", "completed"]]);
    expect(await log(approved)).toEqual([["approved", "approved"]]);
    const all = await log(every);
    expect(all.map(([type]) => type)).toEqual(["created", "claimed", "started", "completed", "created", "claimed", "started", "submitted", "approved"]);
    expect(all.every(([, matched]) => matched === "*")).toBe(true);
    expect(await log(failed)).toEqual([]);
  });
});
