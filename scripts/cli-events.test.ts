import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ensurePartitions, listPartitions, monthOf } from "@/lib/events/partitions";
import { readInsights } from "@/lib/insights";
import { cancel, claim, complete, setQueueSettings, start, taskHistory, type ActorRef } from "@/lib/tasks";
import { runCli, type Finished } from "@/test/cli";
import { engineFixture, type EngineFixture } from "@/test/engine";
import { eventsOf, taskRow } from "@/test/inspect";

// `npm run cli -- events archive` as a separate process: whole months of finished tasks'
// events to a gzip'd JSON Lines file, then dropped; every refusal is one line, a non-zero
// exit, no file and no partition gone.

let f: EngineFixture;
let dir: string;
let amal: ActorRef;
const cli = (...args: string[]) => runCli(["events", "archive", ...args], f.database.url);
const ids: Record<"done" | "open" | "spans", string> = { done: "", open: "", spans: "" };
const month = (ago: number) => {
  const d = new Date();
  d.setUTCDate(1);
  d.setUTCHours(0, 0, 0, 0);
  d.setUTCMonth(d.getUTCMonth() - ago);
  return d;
};
const [older, last, current, next] = [monthOf(month(2)), monthOf(month(1)), monthOf(month(0)), monthOf(month(-1))];
const at = (ago: number, day: number) => new Date(month(ago).getTime() + day * 86_400_000);

beforeAll(async () => {
  f = await engineFixture();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-archive-"));
  amal = await f.actor("Amal", "agent");
  await ensurePartitions(f.db, month(2));
  f.clock.set(at(2, 3));
  const done = await f.task("done two months ago");
  await f.must(claim, { taskId: done.id, version: 1 }, amal);
  await f.must(start, { taskId: done.id, version: 2 }, amal);
  await f.must(complete, { taskId: done.id, version: 3 }, amal);
  const open = await f.task("still queued");
  const spans = await f.task("made two months ago, done last month");
  await f.must(setQueueSettings, { queue: "default", leaseSeconds: 600 }, amal); // a queue-level fact
  f.clock.set(at(1, 5));
  await f.must(claim, { taskId: spans.id, version: 1 }, amal);
  await f.must(start, { taskId: spans.id, version: 2 }, amal);
  await f.must(complete, { taskId: spans.id, version: 3 }, amal);
  Object.assign(ids, { done: done.id.toString(), open: open.id.toString(), spans: spans.id.toString() });
});
afterAll(async () => {
  await f?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** The log and its partitions, as text: equal before and after means nothing was dropped. */
async function state(): Promise<string> {
  const [rows] = await f.database.client<{ rows: string }[]>`SELECT coalesce(json_agg(e ORDER BY id), '[]')::text AS rows FROM task_events e`;
  return `${JSON.stringify((await listPartitions(f.db)).map((p) => p.table))}\n${rows!.rows}`;
}

function expectOneErrorLine(run: Finished, pattern: RegExp) {
  expect(run.code, run.stderr).not.toBe(0);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(/^error: [^\n]+\n$/);
  expect(run.stderr).toMatch(pattern);
}

describe("refusals: one line, non-zero, nothing written or dropped", () => {
  const out = () => path.join(dir, "refused.jsonl.gz");
  test.each([
    [["--before", "2026-13"], /--before must be a month as YYYY-MM, not "2026-13"/, 2],
    [["--before", "12-2026"], /--before must be a month as YYYY-MM/, 2],
    [[], /missing --before/, 2],
    [["--before", next], new RegExp(`would take in ${current}, the current month: only months that have ended`), 1],
    [["--before", "2999-01"], /the current month, and months still to come/, 1],
    [["--before", last], new RegExp(`${older} has events of 1 unfinished task \\(task \\d+ is queued\\)`), 1],
  ] as [string[], RegExp, number][])("%j", async (args, pattern, code) => {
    const before = await state();
    const run = await cli(...args, "--out", out());
    expectOneErrorLine(run, pattern);
    expect(run.code).toBe(code);
    expect(await state()).toBe(before);
    expect(existsSync(out())).toBe(false);
  });

  test("once that task is cancelled: an existing file, an unwritable path, nothing to archive", async () => {
    const supervisor = await f.actor("Sara");
    f.clock.set(new Date());
    await f.must(cancel, { taskId: ids.open, version: 1, reason: "stale" }, supervisor);
    const before = await state();
    const existing = path.join(dir, "existing.jsonl.gz");
    await fs.writeFile(existing, "keep me");
    expectOneErrorLine(await cli("--before", last, "--out", existing), /cannot write .*existing\.jsonl\.gz: it already exists/);
    expect(await fs.readFile(existing, "utf8")).toBe("keep me");
    expectOneErrorLine(await cli("--before", last, "--out", path.join(dir, "no-such-folder", "x.jsonl.gz")), /cannot write .*no-such-folder.*ENOENT/);
    expect(existsSync(path.join(dir, "no-such-folder"))).toBe(false);
    expectOneErrorLine(await cli("--before", older, "--out", out()), new RegExp(`nothing to archive before ${older}`));
    expect(existsSync(out())).toBe(false);
    expect(await state()).toBe(before);
  });
});

describe("archiving the month before last", () => {
  const out = () => path.join(dir, "archive.jsonl.gz");
  let run: Finished;
  let archived: { id: bigint; taskId: bigint | null; type: string; txId: string; createdAt: Date; payload: unknown }[];

  let chartsBefore: unknown;
  /** The 30-day bars of the default queue as of last month's first day: the archived month's claims, starts, completions. */
  const charts = async (rollups: boolean) => {
    f.clock.set(at(1, 0));
    const read = await readInsights(f.db, { queue: "default", window: "30d", clock: f.clock, rollups });
    f.clock.set(new Date());
    return read.selected?.series;
  };

  beforeAll(async () => {
    archived = (await f.db.query.taskEvents.findMany({ orderBy: (e, { asc }) => asc(e.id) })).filter((e) => e.createdAt < month(1));
    chartsBefore = await charts(false); // read raw: it writes no rollup
    // A relative --out is where the person typed it (npm's INIT_CWD), not the project's folder.
    run = await runCli(["events", "archive", "--before", last, "--out", "archive.jsonl.gz"], f.database.url, { INIT_CWD: dir });
  });

  test("says what it did", () => {
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(new RegExp(`^archived ${archived.length} events of 3 tasks \\(${older}\\) to .*archive\\.jsonl\\.gz\\nsha256 [0-9a-f]{64}\\n`));
  });

  test("the file holds every column of every event of the month, ids as strings; its SHA-256 is the one printed", async () => {
    const bytes = await fs.readFile(out());
    const sha = createHash("sha256").update(bytes).digest("hex");
    expect(run.stdout).toContain(`sha256 ${sha}`);
    const lines = gunzipSync(bytes).toString("utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => Object.keys(l))).toEqual(archived.map(() => ["id", "task_id", "queue", "type", "actor_id", "payload", "created_at", "tx_id"]));
    expect(lines.map((l) => [l.id, l.task_id, l.type, l.tx_id, new Date(l.created_at as string).getTime(), l.payload])).toEqual(
      archived.map((e) => [e.id.toString(), e.taskId?.toString() ?? null, e.type, String(e.txId), e.createdAt.getTime(), e.payload]),
    );
    expect(archived.map((e) => e.taskId === null)).toContain(true); // the queue's settings fact went too
  });

  test("that month's partition is gone; the others stay; the log still refuses deletes", async () => {
    expect((await listPartitions(f.db)).map((p) => p.month)).toEqual([last, current, next]);
    await expect(f.database.client`DELETE FROM task_events`).rejects.toThrow(/append-only/);
  });

  test("each task's history records it (events_archived: who, range, how many, the file and its SHA-256); so does the queue's", async () => {
    const sha = createHash("sha256").update(await fs.readFile(out())).digest("hex");
    const perTask = (id: string) => archived.filter((e) => e.taskId?.toString() === id).length;
    for (const id of [ids.done, ids.open, ids.spans]) {
      const facts = (await eventsOf(f.db, id)).filter((e) => e.type === "events_archived");
      expect(facts.map((e) => e.payload)).toEqual([expect.objectContaining({
        by: "cli", before: last, months: [older], events: perTask(id), total: archived.length, file: "archive.jsonl.gz", sha256: sha,
      })]);
      // Issue 25: no absolute path of the server's in facts everyone reads (the file's name is).
      expect(JSON.stringify(facts.map((e) => e.payload))).not.toContain(dir);
    }
    expect((await taskHistory(f.db, ids.done)).map((e) => e.type)).toEqual(["events_archived"]);
    expect((await taskHistory(f.db, ids.spans)).map((e) => e.type)).toEqual(["claimed", "started", "completed", "events_archived"]);
    const [queueFact] = await f.database.client<{ payload: Record<string, unknown> }[]>`
      SELECT payload FROM task_events WHERE task_id IS NULL AND type = 'events_archived'`;
    expect(queueFact!.payload).toMatchObject({ events: archived.length, tasks: 3, sha256: sha });
    expect((await taskRow(f.db, ids.spans)).status).toBe("done"); // the tasks themselves stay
  });

  test("/insights over the archived month still shows it: its hours were rolled up before its events went", async () => {
    expect(JSON.stringify(chartsBefore)).toMatch(/"completed":1/);
    expect(await charts(true)).toEqual(chartsBefore);
  });

  test("archiving again finds nothing; events that sat in DEFAULT get their month's partition first, then count", async () => {
    expectOneErrorLine(await cli("--before", last, "--out", path.join(dir, "again.jsonl.gz")), new RegExp(`nothing to archive before ${last}`));
    f.clock.set(new Date("2020-03-04T00:00:00Z"));
    const backdated = await f.task("back-dated");
    const rows = async () => (await state()).split("\n")[1];
    const before = await rows();
    expectOneErrorLine(
      await cli("--before", last, "--out", path.join(dir, "default.jsonl.gz")),
      new RegExp(`^error: 2020-03 has events of 1 unfinished task \\(task ${backdated.id} is queued\\)`),
    );
    expect(await rows()).toBe(before); // not an event changed or gone
    expect((await listPartitions(f.db)).map((p) => p.month)).toEqual(["2020-03", last, current, next]);
    expect(existsSync(path.join(dir, "default.jsonl.gz"))).toBe(false);
  });
});
