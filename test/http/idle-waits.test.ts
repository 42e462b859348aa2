import { afterAll, beforeAll, expect, test } from "vitest";
import { createActor, createTask, perform, type ActorRef } from "@/lib/tasks";
import { parsePrometheus, seriesKey } from "@/test/prometheus";
import { openEventStream } from "@/test/sse";
import { httpFixture, type HttpFixture } from "./helpers";

// An idle agent's waits (docs/claiming.md "Waiting for work", its cost): a wait opened when
// the caller's last claim of the same shape found nothing and nothing on the queue changed
// since opens without a claim (lib/realtime/empty-claims.ts). Counted by the server's own
// claim metric, which moves with every claim the engine runs; what would make a task
// claimable — an event, a notBefore coming due — makes the next wait claim again.

let f: HttpFixture;
let scraper: string;
let creator: ActorRef;
beforeAll(async () => {
  f = await httpFixture();
  scraper = await f.token("idle-scraper", "observer");
  creator = await createActor(f.database.db, "user", "Creator");
});
afterAll(async () => {
  await f?.close();
});

/** Claims the engine has run in this server process (claimNext), from GET /metrics. */
async function claimsRun(): Promise<number> {
  const res = await f.api.get("/metrics", scraper);
  expect(res.status, res.text).toBe(200);
  return parsePrometheus(res.text).series.get(seriesKey("claimboard_claim_duration_seconds_count", { operation: "claimNext" })) ?? 0;
}

const create = async (queue: string, title: string, notBefore?: string) => {
  const made = await perform(createTask, { title, queue, ...(notBefore ? { notBefore } : {}) }, { db: f.database.db, actor: creator });
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
};

test("an idle agent's next wait opens without a claim; a task created between its waits is still claimed by the next one", async () => {
  const queue = await f.queue("idle-skip");
  const agent = await f.token("idle-agent");
  const wait = () => f.api.post("/claims", agent, { queue, wait: 1 });

  let before = await claimsRun();
  expect((await wait()).status).toBe(204);
  expect(await claimsRun()).toBe(before + 1); // the first wait tries once: nothing is known yet
  before = await claimsRun();
  for (let i = 0; i < 3; i++) expect((await wait()).status).toBe(204);
  expect(await claimsRun()).toBe(before); // nothing changed on the queue: no claim at all

  // Another shape of claim (start: true) knows nothing yet: it claims.
  before = await claimsRun();
  expect((await f.api.post("/claims", agent, { queue, wait: 1, start: true })).status).toBe(204);
  expect(await claimsRun()).toBe(before + 1);

  // A task created while no wait is open: its event changes the queue, so the next wait claims it.
  const task = await create(queue, "between waits");
  before = await claimsRun();
  const claimed = await wait();
  expect(claimed.status, claimed.text).toBe(200);
  expect((claimed.body as { task: { id: string } }).task.id).toBe(task.id);
  expect(await claimsRun()).toBe(before + 1);
}, 60_000);

test("a notBefore coming due between two waits: the next wait claims it, though no event announced it", async () => {
  const queue = await f.queue("idle-due");
  const agent = await f.token("idle-due-agent");
  const dueAt = Date.now() + 3_000;
  await create(queue, "due soon", new Date(dueAt).toISOString());
  // The first wait claims (nothing is due) and learns the queue's next due moment; the second
  // opens without a claim, since that moment is still ahead.
  expect((await f.api.post("/claims", agent, { queue, wait: 1 })).status).toBe(204);
  const before = await claimsRun();
  expect((await f.api.post("/claims", agent, { queue, wait: 1 })).status).toBe(204);
  expect(await claimsRun()).toBe(before);
  // No wait open when it comes due: no timer, no event. The next wait still claims it at once.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now()) + 300));
  const began = Date.now();
  const claimed = await f.api.post("/claims", agent, { queue, wait: 5 });
  expect(claimed.status, claimed.text).toBe(200);
  expect((claimed.body as { task: { title: string } }).task.title).toBe("due soon");
  expect(Date.now() - began).toBeLessThan(2_000);
}, 60_000);

test("a token beginning to wait is news only to people's streams (event: fleet): a token's stream carries task events alone", async () => {
  const queue = await f.queue("idle-fleet");
  const agent = await f.token("idle-fleet-agent");
  const stream = await openEventStream(`${f.server.url}/api/v1/events`, { token: scraper });
  try {
    expect((await f.api.post("/claims", agent, { queue, wait: 1 })).status).toBe(204);
    const [row] = await f.database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM claim_waits WHERE queue = ${queue}`;
    expect(row!.n).toBe(1); // it was stamped, and so notified
    await create(queue, "after the wait"); // a task event after it: the stream has read past the notification
    await stream.until((messages) => messages.some((m) => m.event === "task" && (JSON.parse(m.data) as { queue: string }).queue === queue));
    expect(stream.messages.filter((m) => m.event !== "task")).toEqual([]);
  } finally {
    stream.close();
  }
}, 60_000);
