import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { migrateDatabase } from "@/db/migrate";
import { readFleet } from "@/lib/fleet";
import { freshDatabase, type TestDatabase } from "@/test/db";

// The event log keeps on its write path only the indexes the write path and the live feed
// read (migration 0026, docs/engine.md "What each index is for"): no btree takes every event by queue or by actor and time. Time ranges go through
// the block-range index task_events_time; the queue list's throughput through a partial
// index of finished events.

type Index = { partition: string; indexdef: string };

/** Every index of every partition of task_events, its definition with the partition's name taken out. */
async function partitionIndexes(database: TestDatabase): Promise<Map<string, string[]>> {
  const rows = (await database.client`
    SELECT c.relname AS partition, regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE (UNIQUE )?INDEX \\S+ ON \\S+ ', '') AS indexdef
    FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_index i ON i.indrelid = c.oid
    WHERE h.inhparent = 'task_events'::regclass
    ORDER BY 1, 2`) as unknown as Index[];
  const byPartition = new Map<string, string[]>();
  for (const r of rows) byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r.indexdef]);
  return byPartition;
}

const EXPECTED = [
  "USING brin (created_at) WITH (pages_per_range='32', autosummarize='true')",
  "USING btree (((payload ->> 'previousOwnerId'::text)), created_at) WHERE (type = 'lease_expired'::event_type)",
  "USING btree (actor_id, type, created_at) WHERE (type = ANY (ARRAY['completed'::event_type, 'failed'::event_type]))",
  "USING btree (queue, created_at) WHERE (task_id IS NULL)",
  "USING btree (queue, created_at) WHERE (type = 'lease_expired'::event_type)",
  "USING btree (queue, created_at) WHERE task_event_finishes(type)",
  "USING btree (queue, tx_id, id)",
  "USING btree (task_id, id)",
  "USING btree (tx_id, id)",
].sort();

describe("migration 0026 on a log with history in several months", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase({ migratedUpTo: 25 });
    await database.client`SELECT task_events_ensure_partitions(now() - interval '70 days')`;
    await database.client`INSERT INTO actors (id, kind, name) VALUES ('11111111-1111-4111-8111-111111111111', 'agent', 'old-bot')`;
    await database.client`INSERT INTO queues (name) VALUES ('old')`;
    await database.client`
      INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
      SELECT n / 3 + 1, 'old', (ARRAY['claimed', 'started', 'completed'])[n % 3 + 1]::event_type,
             '11111111-1111-4111-8111-111111111111', '{}', now() - interval '60 days' + n * interval '30 minutes'
      FROM generate_series(0, 2879) n`;
    await migrateDatabase(database.url);
  });
  afterAll(async () => {
    await database?.close();
  });

  test("every partition, the months written before it included, has exactly the write path's indexes", async () => {
    const byPartition = await partitionIndexes(database);
    expect(byPartition.size).toBeGreaterThanOrEqual(4); // three months of history and the default
    for (const [partition, indexes] of byPartition) expect({ partition, indexes: indexes.sort() }).toEqual({ partition, indexes: EXPECTED });
  });

  test("no event is lost, and the readers of the dropped indexes read the history", async () => {
    const [row] = (await database.client`SELECT count(*)::int AS n FROM task_events`) as unknown as [{ n: number }];
    expect(row!.n).toBe(2880);
    const fleet = await readFleet(database.db);
    const bot = fleet.agents.find((a) => a.actor.name === "old-bot");
    // Its newest completion is today's last event of the series (60 days of one every 90 minutes).
    expect(bot?.lastSeen?.type).toBe("completed");
    expect(Date.now() - bot!.lastSeen!.at.getTime()).toBeLessThan(2 * 3_600_000);
  });
});

describe("a database migrated from scratch", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  test("the log's partitions carry the same indexes, and no btree takes every event by queue or actor and time", async () => {
    for (const indexes of (await partitionIndexes(database)).values()) {
      expect(indexes.sort()).toEqual(EXPECTED);
      expect(indexes.filter((d) => /^USING btree \((queue|actor_id), created_at\)$/.test(d))).toEqual([]);
    }
  });
});
