import { afterAll, beforeAll, expect, test } from "vitest";
import { claimNext, createActor, createTask, perform } from "@/lib/tasks";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";

// `npm run cli -- reservation list` as a separate process: what is held, a line each; nothing held says so.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
  await makeQueue(database.db, "repo");
});
afterAll(async () => {
  await database?.close();
});

test("reservation list lists what is held, by resource, and says when nothing is", async () => {
  expect((await runCli(["reservation", "list"], database.url)).stdout.trim()).toBe("nothing is reserved");
  const agent = await createActor(database.db, "agent", "coder-1");
  const made = await perform(createTask, {
    title: "Rename the API module", queue: "repo",
    reserves: [{ resource: "src/api/**", mode: "exclusive" }, { resource: "docs/api.md", mode: "shared" }],
  }, { db: database.db, actor: agent });
  if (!made.ok) throw new Error(made.error.message);
  await perform(claimNext, { queue: "repo" }, { db: database.db, actor: agent });
  const listed = await runCli(["reservation", "list"], database.url);
  expect(listed.code, listed.stderr).toBe(0);
  const lines = listed.stdout.trim().split("\n").map((l) => l.split("\t").slice(0, 4));
  expect(lines).toEqual([
    ["docs/api.md", "shared", `#${made.value.id}`, "coder-1"],
    ["src/api/**", "exclusive", `#${made.value.id}`, "coder-1"],
  ]);
  const refused = await runCli(["reservation", "list", "extra"], database.url);
  expect(refused.code).toBe(2); // a usage error
  expect(refused.stderr.trim()).toBe("error: reservation list takes no arguments (see --help)");
});
