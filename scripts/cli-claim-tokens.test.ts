import { afterAll, beforeAll, expect, test } from "vitest";
import { expectError, expectTaskResponse, httpFixture, type HttpFixture } from "@/test/http/helpers";
import { runCli } from "@/test/cli";

// `claim-token create` (docs/api.md "Claim-scoped tokens"): over HTTP as the task's owner
// (CLAIMBOARD_URL, CLAIMBOARD_TOKEN), the token alone on the last line; refusals are one line.

let f: HttpFixture;
let amal: string;
let bilal: string;
beforeAll(async () => {
  f = await httpFixture();
  amal = await f.token("amal");
  bilal = await f.token("bilal");
});
afterAll(async () => {
  await f?.close();
});

test("the owner mints a claim token from a shell; others are refused in one line; flags are checked first", async () => {
  const queue = await f.queue("cli-claims");
  expectTaskResponse(await f.api.post("/tasks", amal, { title: "shell work", queue }), 201);
  const held = expectTaskResponse(await f.api.post("/claims", amal, { queue, start: true }));
  const as = (token: string) => ({ CLAIMBOARD_URL: f.server.url, CLAIMBOARD_TOKEN: token });

  const made = await runCli(["claim-token", "create", held.id, "--version", String(held.version), "--ops", "read,progress"], f.database.url, as(amal));
  expect(made.code, made.stderr).toBe(0);
  const lines = made.stdout.trim().split("\n");
  expect(lines[0]).toBe(`claim token for task ${held.id} attempt ${held.attempt} (read, progress); it is shown only this once:`);
  const claimToken = lines.at(-1)!;
  expect(claimToken).toMatch(/^cbc_/);
  expect((await f.api.get(`/tasks/${held.id}`, claimToken)).status).toBe(200);
  expectError(await f.api.post(`/tasks/${held.id}/complete`, claimToken, { version: held.version }), 403, "op_not_allowed");

  const other = await runCli(["claim-token", "create", held.id, "--version", String(held.version)], f.database.url, as(bilal));
  expect(other).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: not_owner: /) });
  const widen = await runCli(["claim-token", "create", held.id, "--version", String(held.version), "--ops", "read,complete"], f.database.url, as(claimToken));
  expect(widen).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: invalid_request: ops may only narrow/) });
  const noToken = await runCli(["claim-token", "create", held.id, "--version", "1"], f.database.url, { CLAIMBOARD_TOKEN: "" });
  expect(noToken).toMatchObject({ code: 2, stderr: expect.stringContaining("CLAIMBOARD_TOKEN") });
  const badOp = await runCli(["claim-token", "create", held.id, "--version", "1", "--ops", "read,rule"], f.database.url, as(amal));
  expect(badOp.code).not.toBe(0);
  expect(badOp.stderr).toMatch(/ops/);
  for (const run of [made, other, widen]) expect(run.stderr + run.stdout).not.toContain(amal);
});
