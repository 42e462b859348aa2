import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { freePort } from "@/db/embedded";
import { authenticateToken } from "@/lib/auth/tokens";
import { runCli, type Finished } from "@/test/cli";
import { CliError } from "./cli/errors";
import { parseCommand } from "./cli/commands";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { withDatabase } from "@/test/db-url";

// `npm run cli -- …` as a separate process against a fresh database: what it prints, what
// it writes, and that bad input is one `error:` line, a non-zero exit and no write at all.

let database: TestDatabase;
const cli = (...args: string[]) => runCli(args, database.url);

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

/** Every row of the tables the CLI writes, as text: equal snapshots mean nothing was written. */
async function snapshot(): Promise<string> {
  const tables = ["actors", "users", "agent_tokens", "queues", "tasks", "task_events"];
  const rows = await Promise.all(
    tables.map((t) => database.client.unsafe(`SELECT coalesce(json_agg(x ORDER BY x::text), '[]')::text AS rows FROM ${t} x`)),
  );
  return rows.map((r, i) => `${tables[i]}: ${r[0]!.rows}`).join("\n");
}

function expectOneErrorLine(run: Finished, pattern?: RegExp) {
  expect(run.code, run.stderr).not.toBe(0);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(/^error: [^\n]+\n$/);
  if (pattern) expect(run.stderr).toMatch(pattern);
}

describe("token create / revoke", () => {
  test("prints the token alone on the last line; only its SHA-256 hash is stored", async () => {
    const [run, observer] = await Promise.all([
      cli("token", "create", "--name", "agent-1"),
      cli("token", "create", "--name", "watcher", "--role", "observer"),
    ]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const token = lines.at(-1)!;
    expect(token).toMatch(/^cb_[A-Za-z0-9_-]{43}$/);
    expect(lines.slice(0, -1).join("\n")).not.toContain(token);

    const [row] = await database.client`SELECT name, role, prefix, token_hash FROM agent_tokens WHERE name = 'agent-1'`;
    expect(row).toEqual({
      name: "agent-1",
      role: "agent",
      prefix: token.slice(0, 9),
      token_hash: createHash("sha256").update(token).digest("hex"),
    });
    expect(await snapshot()).not.toContain(token);
    expect(await snapshot()).not.toContain(token.slice(9));
    expect(await authenticateToken(database.db, token)).toMatchObject({ role: "agent", actor: { name: "agent-1", kind: "agent" } });

    expect(observer.code).toBe(0);
    expect(await authenticateToken(database.db, observer.stdout.trimEnd().split("\n").at(-1)!)).toMatchObject({ role: "observer" });
  });

  test("a second live token of the same name is refused; revoke by name, once", async () => {
    const before = await snapshot();
    expectOneErrorLine(await cli("token", "create", "--name", "agent-1"), /already exists/);
    // A bad lifetime is said with the flag it came in, and the word it takes for never.
    for (const days of ["abc", "0"]) {
      expectOneErrorLine(await cli("token", "create", "--name", "agent-9", "--expires-days", days), /^error: --expires-days must be a whole number of days from 1 to 3650, or never\n$/);
    }
    expect(await snapshot()).toBe(before);

    const revoke = await cli("token", "revoke", "--name", "agent-1");
    expect(revoke).toMatchObject({ code: 0, stdout: "revoked token agent-1\n", stderr: "" });
    const [row] = await database.client`SELECT revoked_at FROM agent_tokens WHERE name = 'agent-1'`;
    expect(row!.revoked_at).not.toBeNull();

    const afterRevoke = await snapshot();
    expectOneErrorLine(await cli("token", "revoke", "--name", "agent-1"), /no live token named agent-1/);
    expect(await snapshot()).toBe(afterRevoke);
  });
});

describe("user create", () => {
  test("creates a person with an Argon2id hash; a taken email (any case) is refused", async () => {
    const run = await cli("user", "create", "--email", "ada@example.com", "--name", "Ada Lovelace", "--role", "supervisor", "--password", "correct horse");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain("ada@example.com");
    const [row] = await database.client`
      SELECT u.email, u.role, u.password_hash, a.name, a.kind FROM users u JOIN actors a ON a.id = u.actor_id`;
    expect(row).toMatchObject({ email: "ada@example.com", role: "supervisor", name: "Ada Lovelace", kind: "user" });
    expect(row!.password_hash).toMatch(/^\$argon2id\$/);
    expect(await snapshot()).not.toContain("correct horse");

    const before = await snapshot();
    expectOneErrorLine(
      await cli("user", "create", "--email", "ADA@example.com", "--name", "Ada", "--role", "staff", "--password", "another one"),
      /already exists/,
    );
    expect(await snapshot()).toBe(before);
  });
});

describe("task create", () => {
  test("prints only the new id, as the one `cli` actor, through the engine (a created event)", async () => {
    expect(await cli("task", "create", "--title", "Typo", "--queue", "inspectoins")).toMatchObject({ code: 1, stderr: expect.stringContaining("queue 'inspectoins' does not exist") });
    expect(await cli("queue", "create", "--name", "inspections", "--description", "Site visits")).toMatchObject({ code: 0, stderr: "" });
    // At once: the first use of the `cli` actor must still make only one.
    const [first, second] = await Promise.all([
      cli("task", "create", "--title", "Review inspection 7", "--queue", "inspections", "--priority", "5", "--payload", '{"inspection":7}'),
      cli("task", "create", "--title", "Plain"),
    ]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toMatch(/^\d+\n$/);
    expect(second.stdout).toMatch(/^\d+\n$/);

    const rows = await database.client`
      SELECT t.id::text, t.title, t.queue, t.priority, t.payload, t.status, t.version, e.type, a.name AS actor, a.kind
      FROM tasks t JOIN task_events e ON e.task_id = t.id JOIN actors a ON a.id = e.actor_id ORDER BY t.title DESC`;
    expect(rows).toEqual([
      { id: first.stdout.trim(), title: "Review inspection 7", queue: "inspections", priority: 5, payload: { inspection: 7 }, status: "queued", version: 1, type: "created", actor: "cli", kind: "user" },
      { id: second.stdout.trim(), title: "Plain", queue: "default", priority: 0, payload: {}, status: "queued", version: 1, type: "created", actor: "cli", kind: "user" },
    ]);
    const actors = await database.client`SELECT id FROM actors WHERE name = 'cli'`;
    expect(actors).toHaveLength(1);
  });
});

describe("task list, edit and comment", () => {
  test("finds a task by its words, fixes its title at the version seen (a stale one refused), leaves a comment", async () => {
    const id = (await cli("task", "create", "--title", "Inspect the boilr", "--payload", '{"site":"Harbour 4"}')).stdout.trim();
    const found = await cli("task", "list", "--q", "harbour boil");
    expect(found).toMatchObject({ code: 0, stderr: "" });
    expect(found.stdout).toBe(`${id}\tqueued\tdefault\t0\tInspect the boilr\n`);
    expect((await cli("task", "list", "--q", "nothing-like-it")).stdout).toBe("");

    expect(await cli("task", "edit", id, "--version", "1", "--title", "Inspect the boiler")).toMatchObject({ code: 0, stdout: `task ${id} is at version 2\n` });
    const before = await snapshot();
    expectOneErrorLine(await cli("task", "edit", id, "--version", "1", "--title", "Again"), /version/);
    expect(await snapshot()).toBe(before);
    expect(await cli("task", "comment", id, "--body", "Called the site: back on Monday")).toMatchObject({ code: 0, stdout: `commented on task ${id}\n` });

    const events = await database.client`
      SELECT e.type, a.name AS actor, e.payload FROM task_events e JOIN actors a ON a.id = e.actor_id
      WHERE e.task_id = ${id}::bigint ORDER BY e.id`;
    expect(events.map((e) => [e.type, e.actor])).toEqual([["created", "cli"], ["edited", "cli"], ["commented", "cli"]]);
    expect(events[1]!.payload).toMatchObject({ changes: { title: { from: "Inspect the boilr", to: "Inspect the boiler" } } });
    const [row] = await database.client`SELECT title, version FROM tasks WHERE id = ${id}::bigint`;
    expect(row).toEqual({ title: "Inspect the boiler", version: 2 });
  });
});

describe("task list escapes what a terminal would obey", () => {
  test("a title stored with escape sequences, tabs or bidi overrides prints as visible escapes, one row per task", async () => {
    const id = (await cli("task", "create", "--title", "Escaped title probe")).stdout.trim();
    // Written past the API's check, as an older row might hold.
    await database.client`UPDATE tasks SET title = ${"probe \x1b[2J\x1b]0;pwned\x07 a\tb\nc \u202Egnp.exe"} WHERE id = ${id}::bigint`;
    const found = await cli("task", "list", "--q", "probe");
    expect(found.stdout).toBe(`${id}\tqueued\tdefault\t0\tprobe \\x1b[2J\\x1b]0;pwned\\x07 a\\tb\\nc \\u202egnp.exe\n`);
  });
});

describe("queue create, archive and restore", () => {
  test("a queue is made with its description and settings; a second of the same name, or a name with spaces, is refused", async () => {
    const made = await cli("queue", "create", "--name", "night", "--description", "Overnight batches", "--lease-seconds", "30", "--claimants", "agents", "--paused");
    expect(made).toMatchObject({ code: 0, stderr: "" });
    expect(made.stdout).toMatch(/^queue night: lease 30 s, .*claimants agents, .*, paused\n$/);
    const [row] = await database.client`SELECT description, lease_seconds, claimants, paused FROM queues WHERE name = 'night'`;
    expect(row).toEqual({ description: "Overnight batches", lease_seconds: 30, claimants: "agents", paused: true });
    expect(await cli("queue", "create", "--name", "night")).toMatchObject({ code: 1, stderr: "error: queue 'night' already exists\n" });
    expect((await cli("queue", "create", "--name", "my queue")).stderr).toMatch(/--name must be .*no spaces/);
  });

  test("archive refuses new tasks in the queue; restore re-opens it; default cannot be archived", async () => {
    expect(await cli("queue", "create", "--name", "old")).toMatchObject({ code: 0 });
    expect((await cli("queue", "archive", "--name", "old")).stdout).toMatch(/^archived queue old/);
    expect((await cli("task", "create", "--title", "x", "--queue", "old")).stderr).toMatch(/queue 'old' is archived/);
    expect((await cli("queue", "restore", "--name", "old")).stdout).toBe("restored queue old\n");
    expect(await cli("task", "create", "--title", "x", "--queue", "old")).toMatchObject({ code: 0 });
    expect((await cli("queue", "archive", "--name", "default")).stderr).toMatch(/cannot be archived/);
  });
});

describe("queue set", () => {
  test("an unknown queue is refused naming it, and none is made", async () => {
    expect((await cli("queue", "set", "--name", "nowhere", "--lease-seconds", "30")).stderr).toMatch(/queue 'nowhere' does not exist/);
    expect(await database.client`SELECT 1 FROM queues WHERE name = 'nowhere'`).toHaveLength(0);
  });

  test("changes only the settings given", async () => {
    expect(await cli("queue", "create", "--name", "fast")).toMatchObject({ code: 0 });
    const run = await cli("queue", "set", "--name", "fast", "--lease-seconds", "5", "--max-failures", "2", "--expiry-threshold", "7");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^queue fast: lease 5 s, max failures 2, .*7/);
    expect(await cli("queue", "set", "--name", "fast", "--max-failures", "4")).toMatchObject({ code: 0 });
    const [row] = await database.client`SELECT lease_seconds, max_failures, expiry_threshold FROM queues WHERE name = 'fast'`;
    expect(row).toEqual({ lease_seconds: 5, max_failures: 4, expiry_threshold: 7 });
  });

  test("who may claim and the attempt ceiling; none lifts the ceiling", async () => {
    expect(await cli("queue", "create", "--name", "errands")).toMatchObject({ code: 0 });
    const run = await cli("queue", "set", "--name", "errands", "--claimants", "people", "--max-attempt-seconds", "600");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/claimants people, attempt ceiling 600 s/);
    expect((await cli("queue", "set", "--name", "errands", "--max-attempt-seconds", "none")).stdout).toMatch(/attempt ceiling none/);
    const [row] = await database.client`SELECT claimants, max_attempt_seconds FROM queues WHERE name = 'errands'`;
    expect(row).toEqual({ claimants: "people", max_attempt_seconds: null });
  });

  test("a person's idle time and grace (docs/attention.md)", async () => {
    expect(await cli("queue", "create", "--name", "desk", "--person-grace-seconds", "0")).toMatchObject({ code: 0 });
    const run = await cli("queue", "set", "--name", "desk", "--person-idle-seconds", "600", "--person-grace-seconds", "120");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/person idle 600 s, person grace 120 s/);
    const [row] = await database.client`SELECT person_idle_seconds, person_grace_seconds FROM queues WHERE name = 'desk'`;
    expect(row).toEqual({ person_idle_seconds: 600, person_grace_seconds: 120 });
  });
});

describe("bad input", () => {
  // Checked in this process (the same code the script runs first, before any database).
  const cases: [string[], RegExp][] = [
    [[], /no command/],
    [["frob"], /unknown command "frob"/],
    [["task"], /unknown command "task"; task takes: task create/],
    [["task", "delete", "--title", "x"], /unknown command "task delete"/],
    [["task", "create"], /missing --title/],
    [["task", "create", "--title", "x", "--titel", "y"], /unknown option '--titel'/],
    [["task", "create", "--title", "x", "extra"], /unexpected argument 'extra'/],
    [["task", "create", "--title"], /--title/],
    [["task", "create", "--title", "x", "--priority", "-5"], /ambiguous/],
    [["task", "create", "--title", ""], /--title must not be empty/],
    [["task", "create", "--title", "x", "--priority", "high"], /--priority must be a whole number/],
    [["task", "create", "--title", "x", "--priority", "5000"], /--priority must be at most 1000/],
    [["task", "create", "--title", "x", "--payload", "{bad"], /--payload is not valid JSON/],
    [["task", "create", "--title", "x", "--payload", "[1]"], /--payload must be a JSON object/],
    [["task", "create", "--title", "x", "--queue", "Not A Queue"], /--queue must be/],
    [["user", "create", "--email", "bea@example.com", "--name", "Bea", "--role", "king", "--password", "long enough"], /--role must be staff or supervisor/],
    [["user", "create", "--email", "not-an-email", "--name", "Bea", "--role", "staff", "--password", "long enough"], /--email must be an email address/],
    [["user", "create", "--email", "bea@example.com", "--name", "Bea", "--role", "staff", "--password", "short"], /--password must be at least 8/],
    [["user", "create", "--email", "bea@example.com", "--name", "Bea", "--role", "staff"], /missing --password/],
    [["token", "create"], /missing --name/],
    [["queue", "set", "--name", "q", "--claimants", "robots"], /^--claimants must be anyone, people or agents$/],
    [["queue", "set", "--name", "q", "--max-attempt-seconds", "30"], /^--max-attempt-seconds must be at least 60$/],
    [["queue", "set", "--name", "q", "--max-attempt-seconds", "forever"], /--max-attempt-seconds must be a whole number/],
    [["token", "create", "--name", "has space"], /--name must be/],
    [["token", "create", "--name", "agent-9", "--role", "boss"], /--role must be agent, observer or supervisor/],
    [["queue", "set", "--lease-seconds", "20"], /missing --name/],
    [["queue", "set", "--name", "slow", "--lease-seconds", "2"], /--lease-seconds must be at least 5/],
    [["queue", "set", "--name", "slow", "--max-failures", "many"], /--max-failures must be a whole number/],
    [["queue", "set", "--name", "slow", "--person-idle-seconds", "soon"], /^--person-idle-seconds must be a whole number/],
    [["queue", "set", "--name", "slow", "--person-idle-seconds", "86401"], /^--person-idle-seconds must be at most 86400$/],
    [["queue", "set", "--name", "slow", "--person-grace-seconds", "3601"], /^--person-grace-seconds must be at most 3600$/],
    [["queue", "set", "--name", "slow", "--person-grace-seconds", "-1"], /--person-grace-seconds/],
    [["queue", "set", "--name", "Slow"], /--name must be 1 to 64 characters/],
    [["task", "edit", "--version", "1", "--title", "x"], /task edit takes one task id/],
    [["task", "edit", "7", "--title", "x"], /missing --version/],
    [["task", "edit", "7", "--version", "1"], /must name at least one of title/],
    [["task", "comment", "7"], /missing --body/],
    [["task", "comment", "7", "--body", "x".repeat(4001)], /--body must be at most 4000 characters/],
    [["task", "list", "--sort", "random"], /--sort must be 'priority', 'created' or 'updated'/],
    [["task", "list", "--q", "x".repeat(10_000)], /--q must be at most/],
  ];

  test.each(cases)("%j is refused before any database: %s", async (args, pattern) => {
    const refused = await parseCommand(args).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as CliError).message).toMatch(pattern);
    expect((refused as CliError).message).not.toContain("\n");
  });

  test("as a process: one `error:` line on stderr, a non-zero exit, no stack trace and nothing written", async () => {
    const before = await snapshot();
    // (A refusal that needs the database, like revoking an unknown name, is tested above.)
    const spawned: [string[], RegExp][] = [
      [["task", "create", "--title", "x", "--titel", "y"], /unknown option '--titel'/],
      [["task", "create", "--title", "x", "--priority", "5000"], /must be at most 1000/],
      [["task", "create", "--title", "x", "--payload", "{bad"], /not valid JSON/],
      [["queue", "set", "--name", "x", "--person-grace-seconds", "3601"], /must be at most 3600/],
    ];
    const runs = await Promise.all(spawned.map(([args]) => cli(...args)));
    runs.forEach((run, i) => expectOneErrorLine(run, spawned[i]![1]));
    expect(runs.map((r) => r.code)).toEqual([2, 1, 1, 1]);
    expect(await snapshot()).toBe(before);
  });

  test("an unreachable database is one line too", async () => {
    const port = await freePort();
    const run = await runCli(["task", "create", "--title", "x"], `postgres://postgres:x@127.0.0.1:${port}/nowhere`);
    expectOneErrorLine(run, /^error: cannot reach the database: /);
  });

  test("--help prints every command and exits 0", async () => {
    const run = await cli("--help");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    for (const command of ["user create", "token create", "token revoke", "task create", "queue set"]) expect(run.stdout).toContain(command);
  });
});

describe("the configured database", () => {
  test("an empty database is migrated first", async () => {
    const name = `${inject("databasePrefix")}_cli_empty`;
    const admin = postgres(inject("adminUrl"), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE "${name}"`);
      const run = await runCli(["task", "create", "--title", "first"], withDatabase(inject("adminUrl"), name));
      expect(run).toMatchObject({ code: 0, stdout: "1\n", stderr: "" });
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });

  test("without DATABASE_URL: the embedded PostgreSQL in the data folder, started for the command and stopped after", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-cli-"));
    await fs.chmod(dataDir, 0o755);
    const env = { DATABASE_URL: "", CLAIMBOARD_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    try {
      const run = await runCli(["token", "create", "--name", "agent-1"], "", env);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout.trimEnd().split("\n").at(-1)).toMatch(/^cb_/);
      expect(existsSync(path.join(dataDir, "postgres", "PG_VERSION"))).toBe(true);
      expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
