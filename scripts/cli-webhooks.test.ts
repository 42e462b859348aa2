import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";

// `npm run cli -- webhook …` as a separate process: create (the secret alone on the last
// line), list (escaped columns), deliveries, delete; bad input is one line and exit 1 or 2,
// nothing written.

let database: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  database = await freshDatabase();
  await makeQueue(database.db, "billing");
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-cli-hooks-"));
});
afterAll(async () => {
  await database?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

// The server secret the seal is made under: the data folder's, as `npm start` would make it.
const cli = (...args: string[]) => runCli(["webhook", ...args], database.url, { CLAIMBOARD_DATA_DIR: dataDir, NEXTAUTH_SECRET: "", WEBHOOKS_ALLOW_TEST_NET: "1" });

test("create, list, deliveries, delete; refusals are one line and write nothing", async () => {
  const made = await cli("create", "--url", "https://198.51.100.9/hook", "--events", "completed,escalated", "--queues", "billing");
  expect(made.code, made.stderr).toBe(0);
  const lines = made.stdout.trim().split("\n");
  expect(lines.at(-1)).toMatch(/^whsec_/);
  const id = /created webhook ([0-9a-f-]{36}) for/.exec(lines[0]!)![1]!;
  expect((await fs.readFile(path.join(dataDir, "auth-secret"), "utf8")).trim()).toMatch(/^[0-9a-f]{64}$/);

  // Each command is a process that loads lib/ (~1.5 s on a quiet machine); the reads and the
  // refusals change nothing, so they run side by side, and the list after them proves it.
  const [listed, deliveries] = await Promise.all([cli("list"), cli("deliveries", id)]);
  expect(listed.stdout.trim()).toBe(`${id}  active  https://198.51.100.9/hook  completed,escalated  billing`);
  expect(deliveries.stdout.trim()).toBe("no deliveries yet");

  const refusals = [
    [["create", "--url", "http://10.0.0.1/x", "--events", "completed"], /^error: --url points to an address that is not allowed: 10\.0\.0\.1 is a private/, 1],
    [["create", "--url", "https://198.51.100.9/x", "--events", "finished"], /^error: --events/, 1],
    [["create", "--url", "https://198.51.100.9/x"], /--events/, 2],
    [["delete", "nope"], /^error: --id must be a webhook id/, 1],
  ] as const;
  const refused = await Promise.all(refusals.map(([args]) => cli(...args)));
  refusals.forEach(([, message, code], i) => {
    expect(refused[i]!.code, refused[i]!.stdout).toBe(code);
    expect(refused[i]!.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused[i]!.stderr).toMatch(message);
  });
  expect((await cli("list")).stdout.trim().split("\n")).toHaveLength(1);

  expect((await cli("delete", id)).stdout.trim()).toBe(`deleted webhook ${id}`);
  expect((await cli("list")).stdout.trim()).toBe("no webhooks");
  const again = await cli("delete", id);
  expect([again.code, again.stderr.trim()]).toEqual([1, `error: No webhook ${id}`]);
}, 240_000);
