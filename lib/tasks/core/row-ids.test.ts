import { afterAll, beforeAll, expect, test } from "vitest";
import { answerQuestion, getQuestion, resolveEffect } from "@/lib/tasks";
import { engineFixture, withStanding, type EngineFixture } from "@/test/engine";
import { failure } from "@/test/inspect";

// A question's or an effect's id is validated as a task's is (core/schemas.ts rowId): 19 digits
// past bigint's range are a 400 naming the field, never a database error (a 500 and a page of logs).

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => {
  await f?.close();
});

const HUGE = "9999999999999999999";

test.each([
  ["getQuestion", "questionId", getQuestion, { taskId: "1", questionId: HUGE }],
  ["answerQuestion", "questionId", withStanding(answerQuestion, "supervisor"), { taskId: "1", questionId: HUGE, text: "yes" }],
  ["resolveEffect", "effectId", withStanding(resolveEffect, "supervisor"), { taskId: "1", effectId: HUGE, version: 1, state: "applied" }],
] as const)("%s with a 19-digit id out of range: invalid_request naming %s", async (_name, field, op, input) => {
  const actor = await f.actor("Sam");
  const refused = failure(await f.run(op as never, input as never, actor), "invalid_request");
  expect(refused.field).toBe(field);
});
