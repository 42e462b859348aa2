import { and, eq, gt, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { agentTokens, taskEvents } from "@/db/schema";
import { createTask, setQueueSettings } from "@/lib/tasks";
import { taskRow } from "@/test/inspect";
import { refusal, rig, waitFor, type Rig } from "./harness";
import { makeQueue } from "@/test/queues";

// Fault 2: SIGSTOP an agent past its lease, let another agent finish the task, SIGCONT.
// The frozen agent wakes believing it still holds the task: its heartbeat, start and
// complete all get 409, and not one of its writes is accepted.

let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterAll(async () => {
  await r?.close();
});

test("fault 2: a SIGSTOPped agent resumed after another finished its task: heartbeat, start, complete all 409; 0 stale writes", async () => {
  const queue = await makeQueue(r.database.db, "frozen");
  await r.as(setQueueSettings, { queue, leaseSeconds: 5 });
  const { id } = await r.as(createTask, { title: "frozen mid-task", queue });
  const frozenToken = await r.token("frozen");
  const frozen = r.agent(frozenToken, ["--queue", queue, "--work-ms", "600000"]);
  await frozen.waitFor(new RegExp(`^claimed ${id} v\\d+ `, "m"));
  frozen.process.kill("SIGSTOP");
  const stoppedAt = performance.now();
  const held = await taskRow(r.database.db, id); // what the frozen agent last knew (heartbeats keep the version)
  const [{ actorId: frozenActor }] = (await r.database.db.select({ actorId: agentTokens.actorId }).from(agentTokens)
    .where(eq(agentTokens.id, frozenToken.id))) as [{ actorId: string }];
  expect(held).toMatchObject({ status: "started", ownerId: frozenActor });

  // Past its lease by the database clock, another agent takes the task and finishes it.
  await waitFor(async () => {
    const [row] = await r.database.client`SELECT lease_until <= now() AS lapsed FROM tasks WHERE id = ${id}`;
    return row!.lapsed === true;
  }, "the frozen agent's lease to lapse");
  const other = r.agent(await r.token("other"), ["--queue", queue, "--work-ms", "100", "--max-tasks", "1"]);
  expect(await other.exited, other.output()).toBe(0);
  const done = await taskRow(r.database.db, id);
  expect(done).toMatchObject({ status: "done" });
  const [{ lastEvent }] = (await r.database.db.select({ lastEvent: sql<string>`max(${taskEvents.id})::text` }).from(taskEvents)) as [{ lastEvent: string }];

  frozen.process.kill("SIGCONT");
  const stoppedMs = performance.now() - stoppedAt;
  // Its pending heartbeat fires first and hears the news; the agent drops the task.
  const [abandoned] = (await frozen.waitFor(new RegExp(`^abandoned ${id}: .*$`, "m")))!;
  expect(abandoned).toMatch(/: (not_owner|version_conflict|lease_expired|invalid_transition): /);

  // The same token, the version it held: every owner call is refused with 409.
  const api = r.client(frozenToken);
  const ref = { id, version: held.version };
  const answers = {
    heartbeat: await refusal(api.heartbeat(ref)),
    start: await refusal(api.start(ref)),
    complete: await refusal(api.complete(ref, { result: { stale: true } })),
    sideEffect: await refusal(api.recordSideEffect(ref, "stale")),
    release: await refusal(api.release(ref)),
    fail: await refusal(api.fail(ref, "stale")),
  };
  for (const [verb, error] of Object.entries(answers)) expect(error.status, `${verb}: ${error.message}`).toBe(409);

  // Stale writes accepted: none — no event by the frozen agent after the other finished, the row unchanged.
  const stale = await r.database.db.select().from(taskEvents)
    .where(and(eq(taskEvents.actorId, frozenActor), gt(taskEvents.id, BigInt(lastEvent))));
  expect(stale).toEqual([]);
  expect(await taskRow(r.database.db, id)).toEqual(done);
  frozen.process.kill("SIGTERM");
  expect(await frozen.exited, frozen.output()).toBe(0);
  expect(frozen.output()).not.toMatch(new RegExp(`^completed ${id} `, "m"));

  console.log(
    `[fault 2] agent stopped ${(stoppedMs / 1000).toFixed(1)} s (5 s lease); after SIGCONT: ` +
      `${Object.entries(answers).map(([verb, e]) => `${verb} ${e.status} ${e.code}`).join(", ")}; ` +
      `the agent's own heartbeat: ${abandoned.replace(/^abandoned \d+: /, "").split(":")[0]}; stale writes accepted: ${stale.length}`,
  );
});
