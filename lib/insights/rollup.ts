import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { fineBucket } from "./fine-buckets";
import { withReadSettings } from "@/db/read-settings";
import { pairedEvents, samplesFrom } from "./samples";
import { COUNTED } from "./series";
import { at, type Span } from "./window";

/**
 * Hourly rollups of closed hours, written lazily by the first reader that needs them
 * (docs/insights.md "Rollups of closed hours"). Nothing on the engine's write path: no
 * worker, no trigger, no counter row that claimers would serialise on.
 *
 * An hour is closed when no transaction can still commit an event dated in it. An event's
 * created_at is its transaction's start (now()), so hour H is closed once it ended before
 * the start of every transaction still open on this database (pg_stat_activity) and before
 * now() − SETTLE_SECONDS (room for sessions of other roles, whose xact_start is hidden).
 */
export const SETTLE_SECONDS = 120;
const HOUR_MS = 3_600_000;
/** Hours rolled up per statement: a day of a busy log is ~35,000 events, well under a second. */
const CHUNK_HOURS = 24;

/** A span and its rolled-up hours [h0, h1) (h0 = h1 = to when none): raw reads cover [from, h0) and [h1, to). */
export interface Plan extends Span {
  h0: Date;
  h1: Date;
}

export const ceilHour = (d: Date) => new Date(Math.ceil(d.getTime() / HOUR_MS) * HOUR_MS);
const noRollup = (span: Span): Plan => ({ ...span, h0: span.to, h1: span.to });

/** The end of the last closed hour, no later than the span's end (a test's clock may be in the past). */
async function closedUntil(db: Executor, to: Date): Promise<Date> {
  const [row] = await db.execute<{ closed: string }>(sql`
    SELECT date_trunc('hour', least(${at(to)}, now() - make_interval(secs => ${SETTLE_SECONDS}),
      (SELECT min(xact_start) FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid())), 'UTC') AS closed`);
  return new Date(row!.closed);
}

/** The queue-hours of [h0, h1) not rolled up yet (for `only`, or every queue), as hour starts. */
async function missingHours(db: Executor, h0: Date, h1: Date, only?: string): Promise<Date[]> {
  const rows = await db.execute<{ hour: string }>(sql`
    SELECT h AS hour FROM generate_series(${at(h0)}, ${at(new Date(h1.getTime() - HOUR_MS))}, interval '1 hour') h
    WHERE EXISTS (SELECT 1 FROM queues q
      WHERE ${only === undefined ? sql`true` : sql`q.name = ${only}`}
        AND NOT EXISTS (SELECT 1 FROM insight_hours m WHERE m.queue = q.name AND m.hour = h))
    ORDER BY h`);
  return rows.map((r) => new Date(r.hour));
}

/** Whether every queue-hour of [h0, h1) is rolled up: one count over insight_hours' primary key. */
async function complete(db: Executor, h0: Date, h1: Date, only?: string): Promise<boolean> {
  const [row] = await db.execute<{ missing: boolean }>(sql`
    SELECT (SELECT count(*) FROM queues WHERE ${only === undefined ? sql`true` : sql`name = ${only}`}) * ${(h1.getTime() - h0.getTime()) / HOUR_MS}
      > (SELECT count(*) FROM insight_hours m JOIN queues q ON q.name = m.queue
          WHERE m.hour >= ${at(h0)} AND m.hour < ${at(h1)} ${only === undefined ? sql`` : sql`AND q.name = ${only}`}) AS missing`);
  return !row!.missing;
}

/**
 * Rolls up the queue-hours of [a, b) not rolled up yet, in one statement: the marker rows
 * first (ON CONFLICT DO NOTHING), then samples and counts only for the markers this
 * statement inserted — a second reader racing on the same hours waits for the first one's
 * markers, inserts none, and so writes nothing. Returns how many queue-hours it rolled up.
 */
export async function rollUp(db: Executor, a: Date, b: Date, only?: string): Promise<number> {
  const [row] = await withReadSettings(db, (tx) => tx.execute<{ hours: number }>(sql`
    WITH fresh AS (
      INSERT INTO insight_hours (queue, hour)
      SELECT q.name, h FROM queues q CROSS JOIN generate_series(${at(a)}, ${at(new Date(b.getTime() - HOUR_MS))}, interval '1 hour') h
      WHERE ${only === undefined ? sql`true` : sql`q.name = ${only}`}
      ON CONFLICT DO NOTHING
      RETURNING queue, hour
    ),
    -- Only the queues with fresh markers: a queue made today must not recompute the others' month.
    ${pairedEvents(at(a), at(b), sql`'-infinity'::timestamptz`, sql`q.name IN (SELECT queue FROM fresh)`)},
    samples AS (${samplesFrom(sql`paired`)}),
    ms AS (SELECT queue, population, metric, date_trunc('hour', created_at, 'UTC') AS hour, (extract(epoch FROM d) * 1000)::float8 AS ms FROM samples),
    put_samples AS (
      INSERT INTO insight_hour_samples (queue, hour, population, metric, bucket, n, min_ms, max_ms)
      SELECT ms.queue, ms.hour, ms.population, ms.metric, ${fineBucket(sql`ms.ms`)}, count(*), min(ms.ms), max(ms.ms)
      FROM ms JOIN fresh f ON f.queue = ms.queue AND f.hour = ms.hour
      GROUP BY 1, 2, 3, 4, 5
      RETURNING 1
    ),
    put_counts AS (
      INSERT INTO insight_hour_counts (queue, hour, type, actor_id, n)
      SELECT f.queue, f.hour, e.type, e.actor_id, count(*)
      FROM fresh f CROSS JOIN LATERAL (
        SELECT type, CASE WHEN type = 'lease_expired' THEN (payload ->> 'previousOwnerId')::uuid ELSE actor_id END AS actor_id
        FROM task_events
        WHERE queue = f.queue AND created_at >= f.hour AND created_at < f.hour + interval '1 hour'
          AND type IN (${sql.join(COUNTED.map((t) => sql`${t}`), sql`, `)})
        OFFSET 0 -- one index range per queue-hour: flattened, the planner sorts the whole log
      ) e
      GROUP BY 1, 2, 3, 4
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM fresh)::int AS hours, (SELECT count(*) FROM put_samples) + (SELECT count(*) FROM put_counts) AS written`));
  return row!.hours;
}

/**
 * Drops a queue's rollups, for a writer of backdated history (lib/demo-history.ts, tests):
 * its events may land in hours a reader rolled up meanwhile (another e2e worker's /insights
 * while the insights spec seeds). The next reader rolls the queue's hours up again. One
 * statement: a reader sees all of the queue's rollups or none.
 */
export async function forgetRollups(db: Executor, queue: string): Promise<void> {
  await db.execute(sql`
    WITH samples AS (DELETE FROM insight_hour_samples WHERE queue = ${queue}),
         counts AS (DELETE FROM insight_hour_counts WHERE queue = ${queue})
    DELETE FROM insight_hours WHERE queue = ${queue}`);
}

/**
 * The plan of a read: the span's closed whole hours, rolled up first where they are not
 * yet (`write`: the reader may write rollups; false inside another operation's transaction,
 * where only complete existing rollups are used). A failed rollup (e.g. lock_timeout while
 * another reader holds the same hours) leaves the read raw — slower, never wrong.
 */
export async function planOf(db: Executor, span: Span, options: { write: boolean; only?: string }): Promise<Plan> {
  const h0 = ceilHour(span.from);
  const h1 = await closedUntil(db, span.to);
  if (h1 <= h0) return noRollup(span);
  if (await complete(db, h0, h1, options.only)) return { ...span, h0, h1 };
  if (!options.write) return noRollup(span);
  try {
    await rollUpMissing(db, h0, h1, options.only);
  } catch (error) {
    console.error("insights: rollup failed, reading raw", error);
    return noRollup(span);
  }
  return { ...span, h0, h1 };
}

/**
 * Rolls up every queue-hour of [h0, h1) not rolled up yet, which the caller knows to be
 * closed (planOf; the event archive, before it drops months whose insights must outlive
 * their events). A run of consecutive missing hours, at most CHUNK_HOURS long, is one statement.
 */
export async function rollUpMissing(db: Executor, h0: Date, h1: Date, only?: string): Promise<void> {
  const missing = await missingHours(db, h0, h1, only);
  for (let i = 0; i < missing.length; ) {
    let j = i + 1;
    while (j < missing.length && j - i < CHUNK_HOURS && missing[j]!.getTime() - missing[j - 1]!.getTime() === HOUR_MS) j++;
    await rollUp(db, missing[i]!, new Date(missing[j - 1]!.getTime() + HOUR_MS), only);
    i = j;
  }
}
