import { afterAll, beforeAll, expect, test } from "vitest";
import { mustSignIn, attackFixture, type AttackFixture } from "@/test/attacks/helpers";
import type { HttpResult } from "@/test/http/helpers";

type Answer = { task: { id: string; version: number }; question: { id: string }; counts: Record<string, number>; items: unknown[] };
const read = (r: HttpResult) => r.body as Answer;

// GET /api/v1/me/attention over real HTTP (`next start`, real PostgreSQL): a signed-in person's
// session is read in the person's own standing (elsewhere the API reads a session as an
// observer), so staff are told of the question an agent asks; tokens in their role's.

let f: AttackFixture;
beforeAll(async () => {
  f = await attackFixture();
});
afterAll(async () => {
  await f?.close();
});

test("a person's session counts what they may do; an agent's and an observer's token what theirs may", async () => {
  const queue = await f.queue("attention-http");
  const agent = await f.token("asker", "agent");
  const observer = await f.token("watcher", "observer");
  const staff = await f.person("amal@example.com", "staff");
  const cookie = await mustSignIn(f, staff.email, staff.password);

  const made = await f.api.post("/tasks", agent, { title: "Which template?", queue });
  const claimed = await f.api.post(`/tasks/${read(made).task.id}/claim`, agent, { version: read(made).task.version });
  const started = await f.api.post(`/tasks/${read(made).task.id}/start`, agent, { version: read(claimed).task.version });
  expect(started.status).toBe(200);
  const asked = await f.api.post(`/tasks/${read(made).task.id}/questions`, agent, { version: read(started).task.version, question: "Short or long?" });
  expect(asked.status).toBe(201);

  const asPerson = await f.api.request("GET", "/me/attention", { headers: { cookie } });
  expect(asPerson.status).toBe(200);
  expect(read(asPerson).counts.questions).toBe(1);
  expect(read(asPerson).items).toEqual([expect.objectContaining({
    kind: "questions", taskId: read(made).task.id, title: "Which template?", queue, questionId: read(asked).question.id,
  })]);
  for (const token of [agent, observer]) {
    const answer = await f.api.get("/me/attention", token);
    expect(answer.status).toBe(200);
    expect(read(answer).counts.questions).toBe(0);
  }
  expect((await f.api.get("/me/attention")).status).toBe(401);
});
