import { statSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { claim, complete, start } from "@/lib/tasks";
import { engineFixture } from "@/test/engine";
import { archiveEvents } from "./archive";
import { ensurePartitions, monthOf } from "./partitions";

// The archive file holds every event of the months it took (titles, payloads, who did
// what): only its owner may read it. And the events_archived facts it leaves are read by
// everyone who can see the board: they name no operating-system account.

test("the archive file is written 600, and its facts name no OS user", async () => {
  const g = await engineFixture();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "claimboard-archive-mode-"));
  const previous = process.umask(0o022); // the usual umask: a plain open() would make 644
  try {
    const monthStart = (ago: number) => {
      const d = new Date();
      d.setUTCHours(0, 0, 0, 0);
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() - ago);
      return d;
    };
    const [amal, sara] = [await g.actor("Amal"), await g.actor("Sara")];
    await ensurePartitions(g.db, monthStart(2));
    g.clock.set(new Date(monthStart(2).getTime() + 86_400_000));
    const task = await g.task("archived");
    await g.must(claim, { taskId: task.id, version: 1 }, amal);
    await g.must(start, { taskId: task.id, version: 2 }, amal);
    await g.must(complete, { taskId: task.id, version: 3 }, amal);
    const out = path.join(dir, "a.jsonl.gz");
    // The CLI used to pass the OS account that ran it (os.userInfo()) as `operator`.
    const request = { before: monthOf(monthStart(1)), out, actor: sara, operator: "os-user-rosalind" };
    await archiveEvents(g.db, request as Parameters<typeof archiveEvents>[1]);

    expect((statSync(out).mode & 0o777).toString(8)).toBe("600");
    const payloads = await g.db.execute<{ payload: unknown }>(sql`SELECT payload FROM task_events WHERE type = 'events_archived'`);
    expect(payloads.length).toBeGreaterThan(0);
    expect(JSON.stringify(payloads)).not.toContain("os-user-rosalind");
    // Nor the server's folders: the file's name only (the CLI tells its operator where it is).
    expect(JSON.stringify(payloads)).not.toContain(dir);
    expect(JSON.stringify(payloads)).toContain("a.jsonl.gz");
  } finally {
    process.umask(previous);
    await g.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
});
