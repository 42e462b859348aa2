import { afterAll, beforeAll, expect, test } from "vitest";
import { askQuestion, claim, createActor, createTask, perform, start, type ActorRef } from "@/lib/tasks";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";
import { taskRow } from "@/test/inspect";

// `question list` and `question answer` as an operator runs them (docs/questions.md).

let database: TestDatabase;
let amal: ActorRef;
beforeAll(async () => {
  database = await freshDatabase();
  amal = await createActor(database.db, "agent", "amal");
});
afterAll(async () => {
  await database?.close();
});

const must = async <T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) => {
  const r = await result;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

test("an operator lists the open questions and answers one with a choice; the task is started again; a choice not offered is refused", { timeout: 240_000 }, async () => {
  const ctx = { db: database.db, actor: amal };
  await makeQueue(database.db, "cli-questions");
  const task = await must(perform(createTask, { title: "refund", queue: "cli-questions" }, ctx));
  const held = await must(perform(claim, { taskId: task.id, version: 1 }, ctx));
  const started = await must(perform(start, { taskId: task.id, version: held.version }, ctx));
  const { question } = await must(perform(askQuestion, { taskId: task.id, version: started.version, question: "Refund in full?", choices: ["yes", "no"] }, ctx));

  const listed = await runCli(["question", "list"], database.url);
  expect(listed, listed.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining("Refund in full?\t[yes | no]") });
  const wrong = await runCli(["question", "answer", task.id, "--question", question.id, "--choice", "maybe"], database.url);
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toContain("choice");
  expect((await taskRow(database.db, task.id)).status).toBe("awaiting_input");
  const answered = await runCli(["question", "answer", task.id, "--question", question.id, "--choice", "yes"], database.url);
  expect(answered, answered.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining("is started") });
  expect(await taskRow(database.db, task.id)).toMatchObject({ status: "started", ownerId: amal.id });
  expect((await runCli(["question", "list"], database.url)).stdout).toContain("no open questions");
});
