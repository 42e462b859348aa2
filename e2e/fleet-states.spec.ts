import { createAgentToken } from "../lib/auth/tokens";
import { SARA } from "./people";
import { expect, signIn, test } from "./fixtures";

// The fleet tells the truth (docs/contract.md; docs/fleet.md "States"): an agent with a claim wait
// open is waiting (on which queue, since when), one that worked a moment ago and now does
// nothing is idle, one never seen is gone; an observer token is listed apart. /agents and
// GET /api/v1/fleet say the same, at a desktop's width and a phone's.

for (const width of [1440, 390]) {
  test(`/agents shows waiting, idle and gone as GET /fleet does (${width} px)`, async ({ page, db, queue, request }, testInfo) => {
    const tag = `${queue}-${width}`;
    // ghost and watcher never call: a token alone lists its agent (gone; the observer apart).
    const [waiter, worker, boss] = await Promise.all([
      createAgentToken(db, { name: `waiter-${tag}` }),
      createAgentToken(db, { name: `worker-${tag}` }),
      createAgentToken(db, { name: `boss-${tag}`, role: "supervisor" }),
      createAgentToken(db, { name: `ghost-${tag}` }),
      createAgentToken(db, { name: `watcher-${tag}`, role: "observer" }),
    ]);
    const auth = (t: { token: string }) => ({ Authorization: `Bearer ${t.token}`, "Claimboard-Instance": `e2e-host:${width}` });
    // worker: claims, starts and completes a task, then stops: seen within the lease, holding nothing.
    const created = await (await request.post("/api/v1/tasks", { headers: auth(worker), data: { title: `Fleet work ${tag}`, queue } })).json();
    const started = await (await request.post("/api/v1/claims", { headers: auth(worker), data: { queue, start: true } })).json();
    expect(started.task.id).toBe(created.task.id);
    expect((await request.post(`/api/v1/tasks/${created.task.id}/complete`, { headers: auth(worker), data: { version: started.task.version } })).status()).toBe(200);
    // waiter: a claim wait open on the (now empty) queue, for the whole test.
    const waiting = request.post("/api/v1/claims", { headers: auth(waiter), data: { queue, wait: 60 }, timeout: 90_000 }).catch(() => null);
    await expect.poll(async () => {
      const fleet = await (await request.get("/api/v1/fleet", { headers: { Authorization: `Bearer ${boss.token}` } })).json();
      return fleet.agents.find((a: { actor: { name: string } }) => a.actor.name === `waiter-${tag}`)?.state;
    }).toBe("waiting");

    const fleet = await (await request.get("/api/v1/fleet", { headers: { Authorization: `Bearer ${boss.token}` } })).json();
    const stateOf = (list: { actor: { name: string }; state: string }[], name: string) => list.find((a) => a.actor.name === name)?.state;
    expect(stateOf(fleet.agents, `waiter-${tag}`)).toBe("waiting");
    expect(stateOf(fleet.agents, `worker-${tag}`)).toBe("idle");
    expect(stateOf(fleet.agents, `ghost-${tag}`)).toBe("gone");
    expect(stateOf(fleet.agents, `watcher-${tag}`)).toBeUndefined();
    expect(stateOf(fleet.apart, `watcher-${tag}`)).toBe("gone");
    expect(fleet.agents.find((a: { actor: { name: string } }) => a.actor.name === `waiter-${tag}`).waiting.queue).toBe(queue);

    await page.setViewportSize({ width, height: 900 });
    await signIn(page, SARA, "/agents");
    const card = (name: string) => page.getByRole("region", { name: `Agent ${name}` });
    await expect(card(`waiter-${tag}`).getByTestId("fleet-state")).toHaveAttribute("data-state", "waiting");
    await expect(card(`waiter-${tag}`).getByTestId("fleet-state")).toContainText(`waiting on ${queue} since`);
    await expect(card(`worker-${tag}`).getByTestId("fleet-state")).toHaveAttribute("data-state", "idle");
    await expect(card(`ghost-${tag}`).getByTestId("fleet-state")).toHaveAttribute("data-state", "gone");
    const apart = page.getByRole("region", { name: /Observer and supervisor tokens/ });
    await expect(apart.getByRole("region", { name: `Agent watcher-${tag}` })).toBeVisible();
    // Nothing runs off a phone's screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await card(`waiter-${tag}`).scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath(`fleet-${width}.png`), fullPage: true });
    await page.close();
    void waiting;
  });
}
