import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { askQuestion, claim, createActor, createTask, perform, recordEffect, start } from "@/lib/tasks";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";

// What an agent wrote reaches an operator's terminal only through the one cell escape
// (scripts/cli/escape.ts): an OSC 52 (clipboard write), an OSC 8 (a link) or a new line that
// would forge a row of its own prints as visible escapes, in `question list` and `effect list`.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

const must = async <T>(result: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>) => {
  const r = await result;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

const HOSTILE = "ok\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\n999\tforged row";

test("question list and effect list escape every cell an agent wrote", { timeout: 240_000 }, async () => {
  const ctx = { db: database.db, actor: await createActor(database.db, "agent", "amal") };
  await makeQueue(database.db, "cli-escape");
  const task = await must(perform(createTask, { title: "refund", queue: "cli-escape" }, ctx));
  const held = await must(perform(claim, { taskId: task.id, version: 1 }, ctx));
  const started = await must(perform(start, { taskId: task.id, version: held.version }, ctx));
  const { effect } = await must(perform(recordEffect, { taskId: task.id, version: started.version, name: "push" }, ctx));
  await must(perform(askQuestion, { taskId: task.id, version: started.version, question: "Refund?", choices: ["yes", "no"] }, ctx));
  // Written as a row may hold it (by hand, or before any check at the door).
  await database.db.execute(sql`UPDATE task_questions SET question = ${HOSTILE}, choices = ${JSON.stringify([HOSTILE])}::jsonb WHERE task_id = ${task.id}::bigint`);
  await database.db.execute(sql`UPDATE task_effects SET name = ${HOSTILE}, idempotency_key = ${HOSTILE} WHERE id = ${effect.id}::bigint`);

  for (const args of [["question", "list"], ["effect", "list", task.id]]) {
    const listed = await runCli(args, database.url);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout, args.join(" ")).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(listed.stdout.trim().split("\n"), args.join(" ")).toHaveLength(1);
    expect(listed.stdout).toContain("\\x1b]52;c;");
  }
});
