import { afterAll, beforeAll, expect, test } from "vitest";
import { startFleet, expectNoInternalErrors } from "./fleet";
import { rig, sleep, waitFor, type Rig } from "./harness";

// Fault 4: pg_terminate_backend on every backend of the application (its pool, application
// name "claimboard", and its LISTEN connection, "claimboard-listen"; db/client.ts and
// lib/realtime/hub.ts), in ten waves half a second apart, in the middle of a run of 8 agents
// and 2 SSE clients. The same promises as a restart must hold.

let r: Rig;
beforeAll(async () => {
  r = await rig();
});
afterAll(async () => {
  await r?.close();
});

test("fault 4: every application backend terminated mid-run: no task lost, none stuck, both streams end with every event", async () => {
  const fleet = await startFleet(r, "terminate");
  await waitFor(async () => (await fleet.done()) >= 8, "the run to be under way (8 tasks done)", 120_000);
  const doneBefore = await fleet.done();

  const waves: { app: string; state: string }[][] = [];
  for (let wave = 0; wave < 10; wave++) {
    if (wave > 0) await sleep(500);
    waves.push(await r.database.client<{ app: string; state: string }[]>`
      SELECT application_name AS app, coalesce(state, '') AS state FROM pg_stat_activity
      WHERE datname = current_database() AND application_name IN ('claimboard', 'claimboard-listen')
        AND pg_terminate_backend(pid)`);
  }
  const lastWaveAt = performance.now();
  // The first wave met the server's pool and its LISTEN connection (both streams are open).
  expect(waves[0]!.map((k) => k.app)).toContain("claimboard");
  expect(waves[0]!.map((k) => k.app)).toContain("claimboard-listen");
  const all = waves.flat();
  // Caught at work: in a statement or a transaction, not idle in the pool.
  const busy = all.filter((k) => k.app === "claimboard" && k.state !== "idle").length;

  await waitFor(async () => (await fleet.done()) > doneBefore, "a task completed after the terminations", 120_000, 100);
  const recoveredMs = performance.now() - lastWaveAt;
  const figures = await fleet.finish();
  expectNoInternalErrors(r);
  console.log(
    `[fault 4] ${all.length} backends terminated in ${waves.length} waves (per wave ${waves.map((w) => w.length).join(", ")}; ` +
      `the LISTEN connection ${all.filter((k) => k.app === "claimboard-listen").length} times; ${busy} caught mid-statement or mid-transaction); ` +
      `first task completed ${Math.round(recoveredMs)} ms after the last wave; 48 tasks done, 0 lost, 0 stuck; ` +
      `reclaimed after a lapsed lease: ${figures.reclaimed}; agent calls retried: ${figures.agentRetries}, tasks agents learnt they had lost: ${figures.agentLost}, agents that gave up: ${figures.gaveUp}, calls unanswered in 30 s: ${figures.timedOut}; ` +
      `SSE connections per client: ${figures.connections.join(" and ")}, each ending with every event`,
  );
});
