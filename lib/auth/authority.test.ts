import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { perform, type ActorRef } from "@/lib/tasks";
import { appendEvents } from "@/lib/tasks/core/events";
import { adoptSchedule, createSchedule, deleteSchedule, listSchedules, updateSchedule } from "@/lib/schedules/ops";
import { runDueSchedules } from "@/lib/schedules/tick";
import { adoptWebhook, createWebhook, listDisabledWebhooks, listWebhooks } from "@/lib/webhooks/ops";
import { sendDueDeliveries } from "@/lib/webhooks/sender";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { listAudit } from "./audit";
import { setPersonDisabled, setPersonRole } from "./people";
import { createToken, revokeToken } from "./token-admin";
import { createUser } from "./users";

// What a person sets up acts with that person's authority (lib/auth/authority.ts): when it ends
// — demoted, disabled, the token revoked or expired — their webhooks deliver nothing and their
// schedules make nothing, both shown paused with the reason, until another supervisor adopts
// them. Schedules' changes are audited like webhooks'.

let f: EngineFixture;
let keeper: ActorRef;
let n = 0;
beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = "1";
  process.env.NEXTAUTH_SECRET ??= "test-server-secret-for-authority";
  f = await engineFixture();
  keeper = await supervisor("keeper");
  await f.queue("routine");
});
afterAll(async () => {
  await f?.close();
});

async function supervisor(name: string): Promise<ActorRef> {
  return (await createUser(f.db, { email: `${name}@example.com`, name, role: "supervisor", password: `${name}-long-password` })).actor;
}
const as = <O>(op: Parameters<typeof perform>[0], input: unknown, actor: ActorRef) =>
  perform(op as never, input as never, { db: f.db, actor, standing: "supervisor", clock: f.clock }) as Promise<{ ok: true; value: O } | { ok: false; error: { code: string; message: string } }>;
async function must<O>(op: Parameters<typeof perform>[0], input: unknown, actor: ActorRef): Promise<O> {
  const result = await as<O>(op, input, actor);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** A webhook for every event and a schedule of every minute, both made by `maker`. */
async function setUp(maker: ActorRef) {
  n += 1;
  const { webhook } = await must<{ webhook: { id: string } }>(createWebhook, { url: `http://127.0.0.1:9/hook-${n}`, events: ["*"] }, maker);
  const schedule = await must<{ id: string; name: string }>(createSchedule, { name: `minutely ${n}`, cron: "* * * * *", queue: "routine", overlap: "allow", task: { title: `routine ${n}` } }, maker);
  return { webhookId: webhook.id, scheduleId: schedule.id, scheduleName: schedule.name };
}
const event = () => appendEvents(f.db, f.clock, [{ taskId: null, queue: "routine", actorId: keeper.id, type: "schedule_skipped", payload: { scheduleId: "probe", schedule: "probe", occurrence: new Date(0).toISOString(), reason: "missed" } }]);
const deliveriesOf = async (webhookId: string) => (await f.db.execute<{ status: string }>(sql`SELECT status FROM webhook_deliveries WHERE webhook_id = ${webhookId}::uuid ORDER BY id`)).map((r) => r.status);
/** The tries the senders made for the webhook's deliveries. */
const triesOf = async (webhookId: string) => Number((await f.db.execute<{ n: number }>(sql`SELECT coalesce(sum(attempts), 0)::int AS n FROM webhook_deliveries WHERE webhook_id = ${webhookId}::uuid`))[0]!.n);
const tasksOf = async (scheduleId: string) => Number((await f.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM tasks WHERE payload->'_schedule'->>'id' = ${scheduleId}`))[0]!.n);
/** A minute passes and every instance's loops run once. */
async function aMinute() {
  f.clock.advance(61);
  await runDueSchedules(f.db, { clock: f.clock });
  return sendDueDeliveries(f.db, { clock: f.clock });
}

describe("a supervisor's webhooks and schedules pause when their authority ends", () => {
  test.each([
    ["demoted", (who: ActorRef) => must(setPersonRole, { actorId: who.id, role: "staff" }, keeper), /is no longer a supervisor/],
    ["disabled", (who: ActorRef) => must(setPersonDisabled, { actorId: who.id, disabled: true }, keeper), /was disabled/],
  ])("%s: nothing delivered, no task made, the reason on both lists and the inbox's; adopted, both resume", async (_how, end, reason) => {
    const boss = await supervisor(`boss-${n + 1}`);
    const { webhookId, scheduleId } = await setUp(boss);
    await aMinute();
    const made = await tasksOf(scheduleId);
    expect(made).toBe(1);

    await end(boss);
    const written = (await deliveriesOf(webhookId)).length;
    expect(await deliveriesOf(webhookId)).not.toContain("pending");
    expect((await listWebhooks(f.db)).find((w) => w.id === webhookId)).toMatchObject({ authorityEndedReason: expect.stringMatching(reason) });
    expect((await listDisabledWebhooks(f.db)).map((w) => w.id)).toContain(webhookId);
    expect((await listSchedules(f.db)).find((s) => s.id === scheduleId)).toMatchObject({ authorityEndedReason: expect.stringMatching(reason), nextAt: null });
    const tried = await triesOf(webhookId);
    await event();
    await aMinute();
    await aMinute();
    expect(await triesOf(webhookId)).toBe(tried);
    expect((await deliveriesOf(webhookId)).length).toBe(written);
    expect(await tasksOf(scheduleId)).toBe(made);
    const audit = [...await listAudit(f.db, "webhook"), ...await listAudit(f.db, "schedule")];
    expect(audit.filter((a) => [webhookId, scheduleId].includes(a.subject.id) && /_paused$/.test(a.action)).map((a) => a.detail.reason)).toEqual([
      expect.stringMatching(reason), expect.stringMatching(reason),
    ]);

    const adopted = await must<{ authorityEndedReason: string | null }>(adoptWebhook, { id: webhookId }, keeper);
    expect(adopted.authorityEndedReason).toBeNull();
    await must(adoptSchedule, { id: scheduleId }, keeper);
    await event();
    await aMinute();
    expect(await triesOf(webhookId)).toBeGreaterThan(tried);
    expect(await tasksOf(scheduleId)).toBe(made + 1);
    expect((await listAudit(f.db, "schedule")).find((a) => a.subject.id === scheduleId)).toMatchObject({ action: "schedule_adopted", actor: { id: keeper.id } });
  });

  test("made by a supervisor token: paused when the token is revoked; an expiry nobody marked still sends and makes nothing", async () => {
    const revoked = await must<{ id: string; name: string }>(createToken, { name: `ops-bot-${n}`, role: "supervisor" }, keeper);
    const expiring = await must<{ id: string; name: string }>(createToken, { name: `ops-bot-${n}-b`, role: "supervisor" }, keeper);
    const actorOf = async (tokenId: string, name: string): Promise<ActorRef> => ({
      id: (await f.db.execute<{ id: string }>(sql`SELECT actor_id::text AS id FROM agent_tokens WHERE id = ${tokenId}::uuid`))[0]!.id, name, kind: "agent",
    });
    const first = await setUp(await actorOf(revoked.id, revoked.name));
    const second = await setUp(await actorOf(expiring.id, expiring.name));

    await must(revokeToken, { name: revoked.name }, keeper);
    expect((await listSchedules(f.db)).find((s) => s.id === first.scheduleId)?.authorityEndedReason).toMatch(/was revoked/);

    // Expired behind everyone's back: the rows are not marked yet, but the sender decides now.
    await f.db.execute(sql`UPDATE agent_tokens SET expires_at = now() - interval '1 second' WHERE id = ${expiring.id}::uuid`);
    await event();
    expect(await deliveriesOf(second.webhookId)).toContain("pending");
    await sendDueDeliveries(f.db, { clock: f.clock });
    expect(await triesOf(second.webhookId)).toBe(0);
    await aMinute();
    expect(await tasksOf(second.scheduleId)).toBe(0);
    expect(await tasksOf(first.scheduleId)).toBe(0);
    expect((await listWebhooks(f.db)).find((w) => w.id === second.webhookId)?.authorityEndedReason).toMatch(/expired/);
    expect(await deliveriesOf(second.webhookId)).not.toContain("pending");
  });
});

describe("schedule changes are audited", () => {
  test("create, change, pause, resume, delete: one row each, with who; a change that changes nothing writes none", async () => {
    const schedule = await must<{ id: string; name: string; cron: string }>(createSchedule, { name: "audited", cron: "0 9 * * 1", queue: "routine", task: { title: "audited" } }, keeper);
    await must(updateSchedule, { id: schedule.id, cron: "0 10 * * 1" }, keeper);
    await must(updateSchedule, { id: schedule.id, cron: "0 10 * * 1" }, keeper);
    await must(updateSchedule, { id: schedule.id, paused: true }, keeper);
    await must(updateSchedule, { id: schedule.id, paused: false }, keeper);
    await must(deleteSchedule, { id: schedule.id }, keeper);
    const rows = (await listAudit(f.db, "schedule")).filter((a) => a.subject.id === schedule.id).reverse();
    expect(rows.map((a) => [a.action, a.actor.id])).toEqual([
      ["schedule_created", keeper.id], ["schedule_changed", keeper.id], ["schedule_paused", keeper.id], ["schedule_resumed", keeper.id], ["schedule_deleted", keeper.id],
    ]);
    expect(rows[1]!.detail).toEqual({ fields: ["cron"] });
  });
});
