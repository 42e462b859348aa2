import { afterAll, beforeAll, expect, test } from "vitest";
import { expectTaskResponse, httpFixture, type HttpFixture } from "@/test/http/helpers";
import { runCli } from "@/test/cli";

// `task claim --queue Q --wait S` (docs/claiming.md §7): a claim over HTTP as CLAIMBOARD_TOKEN
// that waits in the server for work; the task's id is on its line, "nothing claimable" when
// the wait ends empty; a bad --wait is refused before any request.

let f: HttpFixture;
let amal: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
});
afterAll(async () => {
  await f?.close();
});

test("task claim --wait waits for a task created meanwhile; an empty wait says so; --wait 61 is refused", async () => {
  const queue = await f.queue("cli-wait");
  const as = { CLAIMBOARD_URL: f.server.url, CLAIMBOARD_TOKEN: amal };
  const claiming = runCli(["task", "claim", "--queue", queue, "--wait", "30", "--start"], f.database.url, as);
  // Created once the CLI waits in the server (its wait is stamped for the fleet).
  for (let i = 0; (await f.database.client`SELECT 1 FROM claim_waits WHERE queue = ${queue} AND until > now()`).length === 0; i++) {
    if (i > 1_000) throw new Error("the CLI never waited");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const task = expectTaskResponse(await f.api.post("/tasks", amal, { title: "shell work", queue }), 201);
  const claimed = await claiming;
  expect(claimed.code, claimed.stderr).toBe(0);
  expect(claimed.stdout.trim()).toMatch(new RegExp(`^task ${task.id} version \\d+ started: shell work$`));

  const empty = await runCli(["task", "claim", "--queue", queue, "--wait", "1"], f.database.url, as);
  expect(empty).toMatchObject({ code: 0, stdout: `nothing claimable in ${queue} (waited 1 s)\n` });
  const tooLong = await runCli(["task", "claim", "--queue", queue, "--wait", "61"], f.database.url, as);
  expect(tooLong).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: --wait must be from 0 to 60 seconds/) });
}, 120_000);
