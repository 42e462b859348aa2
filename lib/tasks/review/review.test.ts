import type { z } from "zod";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, complete, completeAndClaimNext, foldEvents, start, taskHistory, type ActorRef, type Task } from "@/lib/tasks";
import { randomUUID } from "node:crypto";
import { insertToken } from "@/lib/auth/tokens";
import { review } from "./review";
import { reviewsWaitingFor } from "./waiting";
import { canonicalJson, submissionDigest } from "./submission";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventTypes, failure, rowCounts, taskRow } from "@/test/inspect";

let f: EngineFixture;
let agent: ActorRef;
let person: ActorRef;
let checker: ActorRef;
let other: ActorRef;
beforeAll(async () => {
  f = await engineFixture();
  agent = await f.actor("Bot", "agent");
  person = await f.actor("Pia");
  checker = await f.actor("Chen");
  other = await f.actor("Olu");
  await f.queue("rev-agents", { review: "agents" });
  await f.queue("rev-all", { review: "everyone", maxFailures: 3 });
  await f.queue("rev-none");
});
afterAll(async () => {
  await f?.close();
});

const at = (t: Task) => ({ taskId: t.id, version: t.version });

async function submitted(queue: string, by: ActorRef, result: z.input<typeof complete.input>["result"] = { answer: 42 }, dependsOn?: string[]) {
  const task = await f.task("reviewed", { queue, ...(dependsOn ? { dependsOn } : {}) });
  return work(task, by, result);
}
async function work(task: Task, by: ActorRef, result: z.input<typeof complete.input>["result"] = { answer: 42 }) {
  const claimed = await f.must(claim, at(task), by);
  const started = await f.must(start, at(claimed), by);
  return f.must(complete, { ...at(started), result }, by);
}

describe("review before done", () => {
  test("the digest is SHA-256 of the canonical JSON (keys sorted at every depth)", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}');
    expect(submissionDigest({ b: 1, a: 2 })).toBe(submissionDigest({ a: 2, b: 1 }));
    expect(submissionDigest({ a: 1 })).not.toBe(submissionDigest({ a: 2 }));
    expect(submissionDigest(undefined)).toMatch(/^[0-9a-f]{64}$/);
  });

  test("review agents: an agent's completion waits in review, a person's is done; review none: done", async () => {
    const byAgent = await submitted("rev-agents", agent, { b: 2, a: 1 });
    expect(byAgent).toMatchObject({ status: "in_review", owner: { id: agent.id }, leaseUntil: null });
    expect(byAgent.submission).toMatchObject({ result: { a: 1, b: 2 }, digest: submissionDigest({ a: 1, b: 2 }), by: { id: agent.id }, attempt: 1 });
    expect(await eventTypes(f.db, byAgent.id)).toEqual(["created", "claimed", "started", "submitted"]);
    expect((await submitted("rev-agents", person)).status).toBe("done");
    expect((await submitted("rev-none", agent)).status).toBe("done");
    // A retry of the submitting completion is a success, as a completion's is.
    const again = await f.run(complete, { taskId: byAgent.id, version: byAgent.version - 1 }, agent);
    expect(again.ok && again.value.status).toBe("in_review");
  });

  test("complete-and-claim-next submits for review and claims the next; its retry answers the same next task", async () => {
    const first = await f.task("loop one", { queue: "rev-all" });
    await f.task("loop two", { queue: "rev-all" });
    const held = await f.must(start, at(await f.must(claim, at(first), agent)), agent);
    const input = { ...at(held), result: { n: 1 }, next: { queue: "rev-all", start: true } };
    const answer = await f.must(completeAndClaimNext, input, agent);
    expect(answer.task.status).toBe("in_review");
    expect(answer.next).toMatchObject({ title: "loop two", status: "started" });
    const retried = await f.must(completeAndClaimNext, input, agent);
    expect(retried.next?.id).toBe(answer.next!.id);
  });

  test("approval makes it done, binds to the digest, and unblocks a dependent then (not before)", async () => {
    const task = await f.task("upstream", { queue: "rev-all" });
    const dependent = await f.task("downstream", { queue: "rev-none", dependsOn: [task.id] });
    const inReview = await work(task, agent);
    expect((await taskRow(f.db, dependent.id)).blockedBy).toEqual([BigInt(task.id)]);
    const approved = await f.must(review, { ...at(inReview), decision: "approve", digest: inReview.submission!.digest }, checker);
    expect(approved).toMatchObject({ status: "done", version: inReview.version + 1, submission: { digest: inReview.submission!.digest } });
    expect((await taskRow(f.db, dependent.id)).blockedBy).toEqual([]);
    expect(await eventTypes(f.db, task.id)).toContain("approved");
    expect(await eventTypes(f.db, dependent.id)).toContain("unblocked");
    const { id: _id, blockedBy: _b, ...state } = await taskRow(f.db, task.id);
    expect(foldEvents(await taskHistory(f.db, task.id))).toEqual(state);
  });

  test("refusals write nothing: self_review for the submitter and for a past holder; submission_changed for another digest", async () => {
    const task = await f.task("held twice", { queue: "rev-all" });
    const claimed = await f.must(claim, at(task), person);
    const { release } = await import("@/lib/tasks");
    const released = await f.must(release, at(claimed), person);
    const inReview = await work(released, agent);
    const before = await rowCounts(f.db);
    const row = await taskRow(f.db, task.id);
    const digest = inReview.submission!.digest;
    expect(failure(await f.run(review, { ...at(inReview), decision: "approve", digest }, agent), "self_review").message).toMatch(/submitted/);
    expect(failure(await f.run(review, { ...at(inReview), decision: "reject", digest }, person), "self_review").message).toMatch(/held an attempt/);
    const changed = failure(await f.run(review, { ...at(inReview), decision: "approve", digest: "0".repeat(64) }, checker), "submission_changed");
    expect(changed.task?.status).toBe("in_review");
    expect(await rowCounts(f.db)).toEqual(before);
    expect(await taskRow(f.db, task.id)).toEqual(row);
    // A stale version is a version_conflict, the digest notwithstanding.
    failure(await f.run(review, { ...at(inReview), version: inReview.version - 1, decision: "approve", digest }, checker), "version_conflict");
  });

  test("a person and their OAuth connection's agent are one reviewer: neither may approve what the other worked", async () => {
    const pat = await f.actor("Pat");
    const made = (await f.db.transaction((tx) => insertToken(tx, { name: `mcp-claude-${randomUUID().slice(0, 6)}` })))!;
    const [token] = await f.database.client<{ actor_id: string }[]>`SELECT actor_id::text FROM agent_tokens WHERE id = ${made.id}::uuid`;
    await f.database.client`INSERT INTO oauth_clients (id, name, redirect_uris, metadata) VALUES ('party-client', 'Claude', '{http://127.0.0.1/cb}', '{}')`;
    await f.database.client`INSERT INTO oauth_connections (client_id, person_id, token_id, scope) VALUES ('party-client', ${pat.id}::uuid, ${made.id}::uuid, 'board:work')`;
    const patsAgent: ActorRef = { id: token!.actor_id, name: made.name, kind: "agent" };
    const outsider = await f.actor("Quinn");

    const byAgent = await submitted("rev-all", patsAgent);
    const byPat = await submitted("rev-all", pat);
    // Neither counts as a review waiting for Pat; both do for someone who touched neither.
    expect(await reviewsWaitingFor(f.db, pat.id)).toBe((await reviewsWaitingFor(f.db, outsider.id)) - 2);
    const before = await rowCounts(f.db);
    const refusedPat = failure(await f.run(review, { ...at(byAgent), decision: "approve", digest: byAgent.submission!.digest }, pat), "self_review");
    expect(refusedPat.message).toMatch(/An OAuth connection of yours, or the person it acts for, submitted task/);
    const refusedAgent = failure(await f.run(review, { ...at(byPat), decision: "approve", digest: byPat.submission!.digest }, patsAgent), "self_review");
    expect(refusedAgent.message).toMatch(/An OAuth connection of yours, or the person it acts for, submitted task/);
    expect(await rowCounts(f.db)).toEqual(before);
    expect(await f.must(review, { ...at(byAgent), decision: "approve", digest: byAgent.submission!.digest }, outsider)).toMatchObject({ status: "done" });
  });

  test("a reject is a strike with the note as the next claimant's hand-off; the third escalates", async () => {
    const task = await f.task("rejected thrice", { queue: "rev-all" });
    const reviewers = [checker, other, await f.actor("Third")];
    let current = task;
    for (let strike = 1; strike <= 3; strike++) {
      const worker = await f.actor(`Worker ${strike}`, "agent");
      if (strike > 1) {
        // The next claimant gets the reviewer's note with the claim.
        const claimed = await f.must(claim, at(current), worker);
        expect(claimed.handoff).toMatchObject({ summary: `not good enough ${strike - 1}`, by: { id: reviewers[strike - 2]!.id } });
        current = await f.must(complete, { ...at(await f.must(start, at(claimed), worker)), result: { strike } }, worker);
      } else {
        current = await work(current, worker, { strike });
      }
      expect(current.status).toBe("in_review");
      current = await f.must(review, { ...at(current), decision: "reject", digest: current.submission!.digest, note: `not good enough ${strike}` }, reviewers[strike - 1]!);
      expect(current).toMatchObject({ failureCount: strike, owner: null, submission: null });
      expect(current.status).toBe(strike < 3 ? "queued" : "escalated");
    }
    expect((await eventTypes(f.db, task.id)).slice(-2)).toEqual(["rejected", "escalated"]);
    const { id: _id, blockedBy: _b, ...state } = await taskRow(f.db, task.id);
    expect(foldEvents(await taskHistory(f.db, task.id))).toEqual(state);
  });
});
