import { open, unlink } from "node:fs/promises";
import path from "node:path";
import { inArray, sql } from "drizzle-orm";
import type { Db, Tx } from "@/db/client";
import { tasks, taskState } from "@/db/schema";
import { databaseClock, appendEvents, type NewEvent, taskCheckpoint } from "@/lib/tasks";
import type { ActorRef } from "@/lib/tasks/model";
import { rollUpMissing } from "@/lib/insights/rollup";
import { ArchiveRefused, refuseDefaultRows, refuseUnendedMonths, refuseUnfinishedTasks } from "./archive-checks";
import { verifyArchiveFile, writeArchiveFile } from "./archive-file";
import { ensurePartitions, listPartitions, monthStart, type MonthPartition } from "./partitions";

export { ArchiveRefused, isMonth } from "./archive-checks";

// `npm run cli -- events archive --before YYYY-MM` (docs/event-log.md):
// whole months of finished tasks' events to a gzip'd JSON Lines file, the file read back and
// checked, then in one transaction the months' partitions dropped and the fact recorded as
// `events_archived` events (one per task whose events went, one per queue). Nothing else can
// drop a partition: the migration's event trigger lets only a transaction that set
// claimboard.archiving through.

export interface ArchiveRequest {
  /** "YYYY-MM": every whole month strictly before it. */
  before: string;
  out: string;
  actor: ActorRef;
}

export interface ArchiveResult {
  months: string[];
  events: number;
  tasks: number;
  file: string;
  sha256: string;
}

const PAGE = 5000;
/** Events per INSERT of facts: far below PostgreSQL's 65,535 parameters (6 per event). */
const FACTS_PER_WRITE = 2000;

export async function archiveEvents(db: Db, request: ArchiveRequest): Promise<ArchiveResult> {
  await refuseUnendedMonths(db, request.before);
  await ensurePartitions(db);
  const before = monthStart(request.before);
  const partitions = (await listPartitions(db)).filter((p) => p.to <= before);
  await refuseDefaultRows(db, before, request.before);
  const counts = await countByPartition(db, before);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total === 0) throw new ArchiveRefused(`nothing to archive before ${request.before}: no events are older`);
  await refuseUnfinishedTasks(db, before);
  // /insights reads ended hours from their rollups: made now, while the events are still
  // here, they keep the archived months' charts and figures (an hour first rolled up after
  // its events went would read as empty). Ended months are closed hours (rollup.ts).
  if (partitions.length > 0) await rollUpMissing(db, partitions[0]!.from, before);

  // 600: the file holds every event of those months, for the server's owner only.
  const file = await open(request.out, "wx", 0o600).catch((error: NodeJS.ErrnoException) => {
    throw new ArchiveRefused(`cannot write ${request.out}: ${error.code === "EEXIST" ? "it already exists" : error.message}`);
  });
  let keep = false;
  try {
    const written = await writeArchiveFile(file, eventLines(db, before));
    const reread = await verifyArchiveFile(request.out);
    if (written.events !== total || reread.events !== total || reread.sha256 !== written.sha256) {
      throw new ArchiveRefused(`${request.out} did not read back as written (${reread.events} of ${total} events): nothing dropped`);
    }
    const result: ArchiveResult = {
      months: partitions.map((p) => p.month), events: total, tasks: 0, file: path.basename(request.out), sha256: written.sha256,
    };
    result.tasks = await db.transaction((tx) => dropAndRecord(tx, request, partitions, counts, result));
    keep = true;
    return result;
  } finally {
    if (!keep) await unlink(request.out).catch(() => {});
  }
}

/** Events per partition table before `before` (the DEFAULT partition was refused already). */
async function countByPartition(db: Db | Tx, before: Date): Promise<Map<string, number>> {
  const rows = await db.execute<{ table: string; n: number }>(sql`
    SELECT tableoid::regclass::text AS "table", count(*)::int AS n FROM task_events
     WHERE created_at < ${before.toISOString()}::timestamptz GROUP BY 1`);
  return new Map(rows.map((r) => [r.table, r.n]));
}

/** The events as JSON lines, made by PostgreSQL, in id order, a page at a time. */
async function* eventLines(db: Db, before: Date): AsyncIterable<string> {
  let after = "0";
  for (;;) {
    const rows = await db.execute<{ id: string; line: string }>(sql`
      SELECT id::text, json_build_object(
               'id', id::text, 'task_id', task_id::text, 'queue', queue, 'type', type, 'actor_id', actor_id,
               'payload', payload, 'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
               'tx_id', tx_id::text)::text AS line
        FROM task_events
       WHERE created_at < ${before.toISOString()}::timestamptz AND id > ${after}::bigint
       ORDER BY id LIMIT ${PAGE}`);
    for (const row of rows) yield row.line;
    if (rows.length < PAGE) return;
    after = rows.at(-1)!.id;
  }
}

/**
 * The one transaction: the months held still (SHARE: reads go on, writes wait), counted again
 * against the file, their tasks' rows locked and found finished, the partitions dropped, the
 * facts written. Returns how many tasks had events archived.
 */
async function dropAndRecord(tx: Tx, request: ArchiveRequest, partitions: MonthPartition[], counts: Map<string, number>, result: ArchiveResult): Promise<number> {
  const before = monthStart(request.before);
  await tx.execute(sql`SELECT set_config('claimboard.archiving', 'on', true)`);
  const tables = partitions.map((p) => p.table).join(", ");
  await tx.execute(sql.raw(`LOCK TABLE ${tables} IN SHARE MODE`));
  const now = await countByPartition(tx, before);
  const same = now.size === counts.size && [...counts].every(([table, n]) => now.get(table) === n);
  if (!same) throw new ArchiveRefused(`events before ${request.before} changed while the file was written: nothing dropped, run it again`);

  const perTask = await tx.execute<{ task_id: string | null; queue: string; n: number }>(sql`
    SELECT task_id::text, queue, count(*)::int AS n FROM task_events
     WHERE created_at < ${before.toISOString()}::timestamptz GROUP BY 1, 2 ORDER BY 1`);
  const taskIds = perTask.flatMap((r) => (r.task_id === null ? [] : [BigInt(r.task_id)]));
  // Locked in id order (FOR SHARE: finished tasks may still be commented on, after this commits),
  // so each fact's copy of its row is the row its later events start from (lib/tasks/reads/fold.ts).
  const rows = new Map<string, typeof tasks.$inferSelect>();
  for (let i = 0; i < taskIds.length; i += FACTS_PER_WRITE) {
    const ids = taskIds.slice(i, i + FACTS_PER_WRITE);
    // The lock is on the state row (the view `tasks` reads it with its words, migration 0027).
    await tx.select({ id: taskState.id }).from(taskState).where(inArray(taskState.id, ids)).orderBy(taskState.id).for("share");
    const chunk = await tx.select().from(tasks).where(inArray(tasks.id, ids)).orderBy(tasks.id);
    for (const row of chunk) rows.set(row.id.toString(), row);
  }
  const unfinished = [...rows.values()].find((r) => r.status !== "done" && r.status !== "cancelled");
  if (unfinished) throw new ArchiveRefused(`task ${unfinished.id} is ${unfinished.status} again: nothing dropped`);
  await refuseUnfinishedTasks(tx, before);

  await tx.execute(sql.raw(`LOCK TABLE ONLY task_events IN ACCESS EXCLUSIVE MODE`));
  await tx.execute(sql.raw(`DROP TABLE ${tables}`));

  const common = {
    // No operating-system account and no server folder: these facts are read by everyone who
    // sees the board. The file's name and SHA-256 identify it; the CLI prints where it is.
    by: request.actor.name,
    before: request.before, months: result.months, total: result.events, file: result.file, sha256: result.sha256,
  };
  const perQueue = new Map<string, { events: number; tasks: number }>();
  const facts: NewEvent[] = [];
  for (const r of perTask) {
    const q = perQueue.get(r.queue) ?? { events: 0, tasks: 0 };
    perQueue.set(r.queue, { events: q.events + r.n, tasks: q.tasks + (r.task_id === null ? 0 : 1) });
    if (r.task_id === null) continue;
    facts.push({
      taskId: BigInt(r.task_id), queue: r.queue, type: "events_archived", actorId: request.actor.id,
      payload: { ...common, events: r.n, task: taskCheckpoint(rows.get(r.task_id)!) },
    });
  }
  for (const [queue, q] of perQueue) {
    facts.push({ taskId: null, queue, type: "events_archived", actorId: request.actor.id, payload: { ...common, events: q.events, tasks: q.tasks } });
  }
  for (let i = 0; i < facts.length; i += FACTS_PER_WRITE) await appendEvents(tx, databaseClock, facts.slice(i, i + FACTS_PER_WRITE));
  return taskIds.length;
}
