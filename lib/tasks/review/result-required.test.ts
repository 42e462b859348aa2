import type { z } from "zod";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, completeAndClaimNext, completeMany, start, type ActorRef, type Task } from "@/lib/tasks";
import { isEmptyResult } from "./result-required";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { failure, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
let agent: ActorRef;
let person: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("Bot", "agent");
  person = await f.actor("Pia");
  await f.queue("req-all", { review: "everyone" });
  await f.queue("req-agents", { review: "agents" });
  await f.queue("req-none");
});
afterAll(async () => {
  await f?.close();
});

const at = (t: Task) => ({ taskId: t.id, version: t.version });
async function started(queue: string, by: ActorRef) {
  const task = await f.task("needs a result", { queue });
  return f.must(start, at(await f.must(claim, at(task), by)), by);
}

const EMPTY: z.input<typeof complete.input>["result"][] = [undefined, null, "", "  \n", {}, []];

describe("a completion that waits for review needs a result", () => {
  test("what counts as empty", () => {
    for (const value of EMPTY) expect(isEmptyResult(value), JSON.stringify(value)).toBe(true);
    for (const value of [0, false, "done", { a: null }, [null]]) expect(isEmptyResult(value), JSON.stringify(value)).toBe(false);
  });

  test("an empty result in a reviewed queue is refused naming `result`, and writes nothing", async () => {
    for (const result of EMPTY) {
      const held = await started("req-all", person);
      const before = await rowCounts(f.db);
      const row = await taskRow(f.db, held.id);
      const answer = await f.run(complete, { ...at(held), ...(result === undefined ? {} : { result }) }, person);
      expect(answer.ok, JSON.stringify(result)).toBe(false);
      const refused = failure(answer, "invalid_request");
      expect(refused.field).toBe("result");
      expect(refused.message).toMatch(/req-all reviews this completion/);
      expect(refused.task?.status).toBe("started");
      expect(await rowCounts(f.db)).toEqual(before);
      expect(await taskRow(f.db, held.id)).toEqual(row);
      // The same holder then submits with a summary.
      expect((await f.must(complete, { ...at(held), result: { summary: "did it" } }, person)).status).toBe("in_review");
    }
  });

  test("only where the completion would wait: a person in an agents-reviewed queue, or no review, may complete with nothing", async () => {
    expect((await f.must(complete, at(await started("req-agents", person)), person)).status).toBe("done");
    expect((await f.must(complete, { ...at(await started("req-none", agent)), result: null }, agent)).status).toBe("done");
    failure(await f.run(complete, { ...at(await started("req-agents", agent)), result: {} }, agent), "invalid_request");
  });

  test("batch and complete-and-claim-next: the empty item is refused alone", async () => {
    const empty = await started("req-all", agent);
    const full = await started("req-all", agent);
    const answer = await f.must(completeMany, { tasks: [{ id: empty.id, version: empty.version, result: "" }, { id: full.id, version: full.version, result: "ok" }] }, agent);
    expect(answer[0]).toMatchObject({ ok: false, error: { code: "invalid_request", field: "result" } });
    expect(answer[1]).toMatchObject({ ok: true, task: { status: "in_review" } });
    failure(await f.run(completeAndClaimNext, { ...at(empty), next: { queue: "req-all" } }, agent), "invalid_request");
    // A stale version is still a version conflict, not a missing result.
    failure(await f.run(complete, { taskId: empty.id, version: empty.version - 1 }, agent), "version_conflict");
  });
});
