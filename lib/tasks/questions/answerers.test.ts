import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertToken } from "@/lib/auth/tokens";
import { answerQuestion, askQuestion, claim, listOpenQuestions, start, type ActorRef, type Task } from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { failure, rowCounts } from "@/test/inspect";

// Who may answer a question is one engine rule (mayAnswer, rules.ts): the reviewer rule's party —
// a person and their OAuth connections' agents — never answers its own question, and staff answer
// only in the queues they are shown (claimants admit people). The inbox's list reads the same rule.

let f: EngineFixture;
let pat: ActorRef;
let outsider: ActorRef;
let patsAgent: ActorRef;
let patsOtherAgent: ActorRef;

async function connection(person: ActorRef, client: string): Promise<ActorRef> {
  const made = (await f.db.transaction((tx) => insertToken(tx, { name: `mcp-${client}-${randomUUID().slice(0, 6)}`, role: "supervisor" })))!;
  const [token] = await f.database.client<{ actor_id: string }[]>`SELECT actor_id::text FROM agent_tokens WHERE id = ${made.id}::uuid`;
  await f.database.client`INSERT INTO oauth_clients (id, name, redirect_uris, metadata) VALUES (${client}, ${client}, '{http://127.0.0.1/cb}', '{}') ON CONFLICT DO NOTHING`;
  await f.database.client`INSERT INTO oauth_connections (client_id, person_id, token_id, scope) VALUES (${client}, ${person.id}::uuid, ${made.id}::uuid, 'board:work board:supervise')`;
  return { id: token!.actor_id, name: made.name, kind: "agent" };
}

beforeAll(async () => {
  f = await engineFixture();
  pat = await f.actor("Pat");
  outsider = await f.actor("Quinn");
  patsAgent = await connection(pat, "claude");
  patsOtherAgent = await connection(pat, "cursor");
  await f.queue("party-asks", { questionTimeoutSeconds: 3600 });
  await f.queue("agents-only-asks", { questionTimeoutSeconds: 3600, claimants: "agents" });
});
afterAll(async () => {
  await f?.close();
});

async function asked(by: ActorRef, queue = "party-asks"): Promise<{ task: Task; questionId: string }> {
  const task = await f.task(`asks ${randomUUID().slice(0, 6)}`, { queue });
  const claimed = await f.must(claim, { taskId: task.id, version: task.version }, by);
  const started = await f.must(start, { taskId: task.id, version: claimed.version }, by);
  const q = await f.must(askQuestion, { taskId: task.id, version: started.version, question: "Go ahead?" }, by);
  return { task: q.task, questionId: q.question.id };
}

const asSupervisor = withStanding(answerQuestion, "supervisor");
const asStaff = withStanding(answerQuestion, "staff");

describe("a party cannot answer itself", () => {
  test("a person may not answer their own OAuth agent's question: 403 self_review, nothing written", async () => {
    const { task, questionId } = await asked(patsAgent);
    const before = await rowCounts(f.db);
    const refused = failure(await f.run(asSupervisor, { taskId: task.id, questionId, text: "yes" }, pat), "self_review");
    expect(refused.message).toMatch(/OAuth connection of yours/);
    expect(await rowCounts(f.db)).toEqual(before);
    await f.must(asSupervisor, { taskId: task.id, questionId, text: "yes" }, outsider);
  });

  test("a model may not answer its own question through a second connection of the same person", async () => {
    const { task, questionId } = await asked(patsAgent);
    failure(await f.run(asSupervisor, { taskId: task.id, questionId, text: "yes" }, patsOtherAgent), "self_review");
  });

  test("the inbox's list leaves out the questions of the reader's own party", async () => {
    const { questionId } = await asked(patsAgent);
    const forPat = await f.must(withStanding(listOpenQuestions, "supervisor"), {}, pat);
    expect(forPat.map((q) => q.id)).not.toContain(questionId);
    const forQuinn = await f.must(withStanding(listOpenQuestions, "supervisor"), {}, outsider);
    expect(forQuinn.map((q) => q.id)).toContain(questionId);
  });
});

describe("staff answer only where they are shown", () => {
  test("staff may not answer a question in a queue claimed by agents only: 403 forbidden; a supervisor may", async () => {
    const bot = await f.actor(`bot-${randomUUID().slice(0, 6)}`, "agent");
    const { task, questionId } = await asked(bot, "agents-only-asks");
    const before = await rowCounts(f.db);
    const refused = failure(await f.run(asStaff, { taskId: task.id, questionId, text: "yes" }, outsider), "forbidden");
    expect(refused.message).toMatch(/agents-only-asks/);
    expect(await rowCounts(f.db)).toEqual(before);
    await f.must(asSupervisor, { taskId: task.id, questionId, text: "yes" }, pat);
  });
});
