import { afterAll, beforeAll, expect, test } from "vitest";
import { runCli } from "@/test/cli";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { makeQueue } from "@/test/queues";

// `npm run cli -- schedule …` as a separate process: create, list, pause and resume, delete;
// a 6-field cron, an unknown zone or queue is one line naming the flag, exit 1, nothing written.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
  await makeQueue(database.db, "reports");
});
afterAll(async () => {
  await database?.close();
});
const cli = (...args: string[]) => runCli(["schedule", ...args], database.url);

test("create, list, pause, resume, delete; refusals name the flag and write nothing", async () => {
  const made = await cli("create", "--name", "weekday digest", "--cron", "0 9 * * 1-5", "--timezone", "Europe/Berlin", "--queue", "reports", "--title", "Send the digest");
  expect(made.code, made.stderr).toBe(0);
  const [, id] = /^created schedule ([0-9a-f-]{36}) \(weekday digest\); next run \d{4}-\d\d-\d\dT0[78]:00:00\.000Z$/.exec(made.stdout.trim())!;
  expect((await cli("list")).stdout.trim()).toMatch(new RegExp(`^${id}  active  weekday digest  0 9 \\* \\* 1-5 \\(Europe/Berlin\\)  reports  next \\S+  last none$`));

  // Each command is a process that loads lib/; the refusals write nothing, so they run side
  // by side, and the list after them proves it.
  const refusals = [
    [["--cron", "0 0 9 * * 1"], /^error: --cron must have 5 fields/],
    [["--cron", "0 9 * * 1", "--timezone", "Mars/Olympus"], /^error: --timezone Mars\/Olympus is not an IANA time zone/],
    [["--cron", "0 9 * * 1", "--queue", "nowhere"], /^error: --queue: no queue is named nowhere/],
  ] as const;
  const base = ["create", "--name", "bad", "--queue", "reports", "--title", "t"];
  const refused = await Promise.all(refusals.map(([args]) => cli(...base, ...args)));
  refusals.forEach(([, message], i) => {
    expect(refused[i]!.code, refused[i]!.stdout).toBe(1);
    expect(refused[i]!.stderr).toMatch(message);
    expect(refused[i]!.stderr.trim().split("\n")).toHaveLength(1);
  });
  expect((await cli("list")).stdout.trim().split("\n")).toHaveLength(1);

  expect((await cli("pause", id!)).stdout.trim()).toBe("paused schedule weekday digest");
  expect((await cli("list")).stdout).toContain("  paused  ");
  expect((await cli("pause", id!, "--resume")).stdout.trim()).toMatch(/^resumed schedule weekday digest; next run /);
  expect((await cli("delete", id!)).stdout.trim()).toBe(`deleted schedule ${id}`);
  expect((await cli("list")).stdout.trim()).toBe("no schedules");
  const usage = await cli("delete");
  expect([usage.code, usage.stderr.trim()]).toEqual([2, "error: schedule delete takes one schedule id (see --help)"]);
}, 240_000);

test("a schedule whose maker's authority ended is listed paused with the reason; `schedule adopt` resumes it as the operator's", async () => {
  const { createUser } = await import("@/lib/auth/users");
  const { perform } = await import("@/lib/tasks");
  const { createSchedule } = await import("@/lib/schedules/ops");
  const { setPersonRole } = await import("@/lib/auth/people");
  const boss = (await createUser(database.db, { email: "boss@example.com", name: "Boss", role: "supervisor", password: "boss-long-password" })).actor;
  const keeper = (await createUser(database.db, { email: "keeper@example.com", name: "Keeper", role: "supervisor", password: "keeper-long-password" })).actor;
  const made = await perform(createSchedule, { name: "boss digest", cron: "0 9 * * 1", queue: "reports", task: { title: "digest" } }, { db: database.db, actor: boss, standing: "supervisor" });
  if (!made.ok) throw new Error(made.error.message);
  const demoted = await perform(setPersonRole, { actorId: boss.id, role: "staff" }, { db: database.db, actor: keeper, standing: "supervisor" });
  expect(demoted.ok).toBe(true);
  expect((await cli("list")).stdout).toContain("  paused (Boss is no longer a supervisor)  boss digest  ");
  const adopted = await cli("adopt", made.value.id);
  expect(adopted.stdout.trim(), adopted.stderr).toMatch(/^adopted schedule boss digest; next run \d{4}-/);
  expect((await cli("list")).stdout).toContain("  active  boss digest  ");
}, 240_000);
