import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectError, expectTask, expectTaskResponse, httpFixture, type HttpFixture, type HttpResult, type WireTask } from "./helpers";

// Issue 22's Done-when over real HTTP: the whole crash story of the effect ledger, A's lapse
// made by the fixture (the server compares with the database clock), and the endpoints'
// refusals, each writing nothing.

let f: HttpFixture;
let amal: string;
let bilal: string;
let boss: string;
let watcher: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
  bilal = await f.token("bilal");
  boss = await f.token("boss", "supervisor");
  watcher = await f.token("watcher", "observer");
});
afterAll(async () => {
  await f?.close();
});

interface WireEffect { id: string; name: string; key: string | null; state: string; idempotencyKey: string; attempt: number; externalRef: string | null }
type OpenTask = WireTask & { openEffects: WireEffect[] };

function effectResponse(res: HttpResult, status: number): { effect: WireEffect; task: OpenTask } {
  expect(res.status, res.text).toBe(status);
  const body = res.body as { effect: WireEffect; task: OpenTask };
  expect(Object.keys(body).sort()).toEqual(["effect", "task"]);
  expectTask(body.task);
  return body;
}

const create = async (queue: string, title = "A task") => expectTaskResponse(await f.api.post("/tasks", amal, { title, queue: await f.queue(queue) }), 201);

describe("the crash story", () => {
  test("A intends, lapses; B's claim carries it unknown; B's complete is 409 effects_unresolved; B resolves and completes; A is refused everywhere", async () => {
    const task = await create("payments", "Charge order 7");
    const a = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    const aStarted = expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, amal, { version: a.version }));
    const intended = effectResponse(await f.api.post(`/tasks/${task.id}/effects`, amal, {
      version: aStarted.version, name: "charge card", key: "order-7", target: "https://pay.test/charges", detail: { cents: 1200 },
    }), 201);
    expect(intended.effect).toMatchObject({ state: "intended", attempt: 1, key: "order-7" });
    const keyOfA = intended.effect.idempotencyKey;
    expect(intended.task.fence).toBe(a.fence);
    // A hands its worker a claim token for this attempt; it works until the attempt ends.
    const minted = await f.api.post(`/tasks/${task.id}/claim-tokens`, amal, { version: aStarted.version });
    expect(minted.status, minted.text).toBe(201);
    const claimTokenOfA = (minted.body as { claimToken: string }).claimToken;
    expect((await f.api.get(`/tasks/${task.id}`, claimTokenOfA)).status).toBe(200);

    await f.lapseLease(task.id); // A froze mid-charge
    const claimed = await f.api.post("/claims", bilal, { queue: "payments" });
    const b = expectTaskResponse(claimed) as OpenTask;
    expect(b).toMatchObject({ id: task.id, attempt: 2, needsCheck: true });
    expect(b.openEffects).toMatchObject([{ id: intended.effect.id, state: "unknown", attempt: 1 }]);
    const keyOfB = b.openEffects[0]!.idempotencyKey;
    expect(keyOfB).toBe(keyOfA); // the same string for A and B: what B sends downstream finds A's charge

    const bStarted = expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, bilal, { version: b.version, confirmCheck: true }));
    const events = await f.eventCount(task.id);
    const blocked = expectError(await f.api.post(`/tasks/${task.id}/complete`, bilal, { version: bStarted.version }), 409, "effects_unresolved");
    expect(blocked.message).toContain("charge card");
    expect(blocked.task).toMatchObject({ status: "started", version: bStarted.version });
    expect(await f.eventCount(task.id)).toBe(events);

    const resolved = effectResponse(await f.api.post(`/tasks/${task.id}/effects/${intended.effect.id}`, bilal, {
      version: bStarted.version, state: "applied", externalRef: "ch_1", note: "the charge went through",
    }), 200);
    expect(resolved.effect).toMatchObject({ state: "applied", externalRef: "ch_1" });
    expect(resolved.task.openEffects).toEqual([]);
    const done = await f.api.post(`/tasks/${task.id}/complete`, bilal, { version: bStarted.version });
    expect(done.status, done.text).toBe(200);

    // A wakes: its fence is superseded, its owner calls refused.
    expect((await f.api.post("/fences/verify", watcher, { fence: a.fence })).body).toMatchObject({ current: false, reason: "superseded", currentAttempt: 2 });
    // A's claim token died with A's attempt: 401 claim_ended, wherever it is used.
    expectError(await f.api.post(`/tasks/${task.id}/heartbeat`, claimTokenOfA, { version: aStarted.version }), 401, "claim_ended");
    expectError(await f.api.get(`/tasks/${task.id}/effects`, claimTokenOfA), 401, "claim_ended");
    const version = aStarted.version;
    for (const [verb, body] of [
      ["heartbeat", { version }], ["effects", { version, name: "charge card", key: "order-7" }], ["complete", { version }],
      ["release", { version }], ["fail", { version, reason: "woke up" }],
    ] as const) {
      const res = await f.api.post(`/tasks/${task.id}/${verb}`, amal, body);
      expect(res.status, `${verb}: ${res.text}`).toBe(409);
    }
    const ledger = (await f.api.get(`/tasks/${task.id}/effects`, watcher)).body as { effects: WireEffect[] };
    expect(ledger.effects.map((e) => [e.state, e.idempotencyKey])).toEqual([["applied", keyOfA]]);
    const types = ((await f.api.get(`/tasks/${task.id}/events?limit=100`, watcher)).body as { events: { type: string }[] }).events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["effect_intended", "effect_unknown", "effect_resolved"]));
  });
});

describe("refusals write nothing", () => {
  test("an effect on a task not started by the caller, an unknown effect, a state not allowed, a bad body", async () => {
    const task = await create("refusals");
    const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    const before = await f.eventCount();
    expect((await f.api.post(`/tasks/${task.id}/effects`, amal, { version: held.version, name: "x" })).status).toBe(409); // claimed, not started
    const started = expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, amal, { version: held.version }));
    const mid = await f.eventCount();
    expect(mid).toBe(before + 1);
    expectError(await f.api.post(`/tasks/${task.id}/effects`, bilal, { version: started.version, name: "x" }), 409, "not_owner");
    expectError(await f.api.post(`/tasks/${task.id}/effects/424242`, amal, { version: started.version, state: "applied" }), 404, "not_found");
    expect(expectError(await f.api.post(`/tasks/${task.id}/effects/nope`, amal, { version: started.version, state: "applied" }), 400, "invalid_request").field).toBe("effectId");
    expect(expectError(await f.api.post(`/tasks/${task.id}/effects`, amal, { version: started.version, name: "" }), 400, "invalid_request").field).toBe("name");
    expect(expectError(await f.api.post(`/tasks/${task.id}/effects`, amal, { version: started.version, name: "x", detail: "y".repeat(17_000) }), 400, "invalid_request").field).toBe("detail");
    expect(await f.eventCount()).toBe(mid);

    const { effect } = effectResponse(await f.api.post(`/tasks/${task.id}/effects`, amal, { version: started.version, name: "push" }), 201);
    const again = effectResponse(await f.api.post(`/tasks/${task.id}/effects`, amal, { version: started.version, name: "push" }), 200);
    expect(again.effect.id).toBe(effect.id);
    expect(expectError(await f.api.post(`/tasks/${task.id}/effects/${effect.id}`, amal, { version: started.version, state: "intended" }), 400, "invalid_request").field).toBe("state");
    effectResponse(await f.api.post(`/tasks/${task.id}/effects/${effect.id}`, amal, { version: started.version, state: "failed" }), 200);
    const count = await f.eventCount();
    expectError(await f.api.post(`/tasks/${task.id}/effects/${effect.id}`, amal, { version: started.version, state: "applied" }), 409, "invalid_transition");
    expect(await f.eventCount()).toBe(count);
  });

  test("a supervisor token resolves an unknown effect of a task nobody holds; an observer may only read", async () => {
    const task = await create("supervised");
    const held = expectTaskResponse(await f.api.post(`/tasks/${task.id}/claim`, amal, { version: 1 }));
    const started = expectTaskResponse(await f.api.post(`/tasks/${task.id}/start`, amal, { version: held.version }));
    const { effect } = effectResponse(await f.api.post(`/tasks/${task.id}/effects`, amal, { version: started.version, name: "email the tenant" }), 201);
    const released = expectTaskResponse(await f.api.post(`/tasks/${task.id}/release`, amal, { version: started.version })) as OpenTask;
    expect(released.openEffects).toMatchObject([{ id: effect.id, state: "unknown" }]);
    expectError(await f.api.post(`/tasks/${task.id}/effects/${effect.id}`, watcher, { version: released.version, state: "failed" }), 403, "forbidden");
    const resolved = effectResponse(await f.api.post(`/tasks/${task.id}/effects/${effect.id}`, boss, { version: released.version, state: "failed", note: "bounced" }), 200);
    expect(resolved.effect).toMatchObject({ state: "failed", note: "bounced" });
  });
});
