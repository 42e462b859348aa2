import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { pgCtl } from "@/e2e/pg-ctl";
import { startFleet, expectNoInternalErrors } from "./fleet";
import { rig, sleep, waitFor, type Rig } from "./harness";

// Fault 3: PostgreSQL stopped (fast shutdown: every connection cut) and started again in the
// middle of a run of 8 agents and 2 SSE clients. Only the suite's own embedded cluster is
// ever restarted; a TEST_DATABASE_URL server is shared, so the test is skipped there.

const dataDir = inject("pgDataDir");
if (!dataDir) console.log("[fault 3] skipped: TEST_DATABASE_URL is a shared server, and this test restarts only the embedded cluster it started");

const health = (url: string) =>
  fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(10_000) }).then((res) => res.status, () => 0);

describe.skipIf(!dataDir)("fault 3: a PostgreSQL restart mid-run", () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(async () => {
    await r?.close();
  });

  test("no task lost, none stuck claimed, health 503 while down then 200 by itself, both streams end with every event", async () => {
    const fleet = await startFleet(r, "restart");
    await waitFor(async () => (await fleet.done()) >= 8, "the run to be under way (8 tasks done)", 120_000);
    const doneBefore = await fleet.done();

    pgCtl(dataDir, ["stop", "-m", "fast"]);
    const stoppedAt = performance.now();
    let downAnswer = 0;
    try {
      await waitFor(async () => (downAnswer = await health(r.server.url)) === 503, "health to answer 503 while the database is down", 30_000, 200);
      await sleep(2_000); // down a moment longer: agents' calls meet it
    } finally {
      // In `finally`, so a failed check never leaves the suite's cluster down.
      pgCtl(dataDir, ["start"], { wait: false });
    }
    const startedAt = performance.now();
    await waitFor(async () => (await health(r.server.url)) === 200, "health to answer 200 again, by itself", 60_000, 100);
    const healthyMs = performance.now() - startedAt;
    await waitFor(async () => (await fleet.done()) > doneBefore, "a task completed after the restart", 120_000, 100);
    const workingMs = performance.now() - startedAt;

    const figures = await fleet.finish();
    expectNoInternalErrors(r);
    expect(downAnswer).toBe(503);
    console.log(
      `[fault 3] PostgreSQL down ${Math.round(startedAt - stoppedAt)} ms (health 503 meanwhile); time to recover after pg_ctl start: ` +
        `health 200 in ${Math.round(healthyMs)} ms, first task completed in ${Math.round(workingMs)} ms; ` +
        `48 tasks done, 0 lost, 0 stuck; reclaimed after a lapsed lease: ${figures.reclaimed}; agent calls retried: ${figures.agentRetries}, tasks agents learnt they had lost: ${figures.agentLost}, agents that gave up: ${figures.gaveUp}, calls unanswered in 30 s: ${figures.timedOut}; ` +
        `SSE connections per client: ${figures.connections.join(" and ")}, each ending with every event`,
    );
  });
});
