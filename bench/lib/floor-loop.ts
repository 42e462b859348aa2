import postgres from "postgres";

/**
 * The floor's scratch schema and pgbench loop (bench/floor.ts measures them; bench/waits.ts
 * samples where they wait). Variants are described in bench/floor.ts.
 */
export const FLOOR_VARIANTS = ["floor", "floor-board", "floor-no-events"] as const;
export type FloorVariant = (typeof FLOOR_VARIANTS)[number];
export const FLOOR_AGENT = "22222222-2222-4222-8222-222222222222";

function schema(variant: FloorVariant): string {
  const board = variant === "floor-board";
  return `
    CREATE TABLE q_tasks (id bigint PRIMARY KEY, queue text NOT NULL, title text NOT NULL,
      priority int NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE q_state (task_id bigint PRIMARY KEY, queue text NOT NULL, status text NOT NULL,
      owner_id uuid, lease_until timestamptz, version int NOT NULL DEFAULT 1, attempt int NOT NULL DEFAULT 0,
      ${board ? "priority int NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now()," : ""}
      updated_at timestamptz NOT NULL DEFAULT now()) WITH (fillfactor = 70);
    ${board ? `CREATE INDEX q_state_status_order ON q_state (status, priority DESC, created_at, task_id);
               CREATE INDEX q_state_queue_status ON q_state (queue, status, task_id);` : ""}
    CREATE TABLE q_ready (task_id bigint PRIMARY KEY, queue text NOT NULL, priority int NOT NULL, created_at timestamptz NOT NULL);
    CREATE INDEX q_ready_order ON q_ready (queue, priority DESC, created_at, task_id);
    CREATE TABLE q_held (task_id bigint PRIMARY KEY, queue text NOT NULL, lease_until timestamptz NOT NULL);
    CREATE INDEX q_held_lease ON q_held (queue, lease_until);
    CREATE TABLE q_events (id bigserial PRIMARY KEY, task_id bigint, queue text NOT NULL, type text NOT NULL,
      actor_id uuid NOT NULL, payload jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(),
      tx_id xid8 NOT NULL DEFAULT pg_current_xact_id());
    CREATE INDEX q_events_task ON q_events (task_id, id);
    CREATE INDEX q_events_feed ON q_events (tx_id, id);
    CREATE INDEX q_events_queue_feed ON q_events (queue, tx_id, id);`;
}

export async function seedFloor(url: string, variant: FloorVariant, tasks: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(schema(variant));
    const board = variant === "floor-board";
    await sql.unsafe(`
      INSERT INTO q_tasks (id, queue, title, priority, created_at)
        SELECT i, 'default', 'task ' || i, 0, now() - (${tasks} - i) * interval '1 ms' FROM generate_series(1, ${tasks}) i;
      INSERT INTO q_state (task_id, queue, status${board ? ", priority, created_at" : ""})
        SELECT id, queue, 'queued'${board ? ", priority, created_at" : ""} FROM q_tasks;
      INSERT INTO q_ready SELECT id, queue, priority, created_at FROM q_tasks;`);
    await sql`VACUUM ANALYZE`;
  } finally {
    await sql.end();
  }
}

/**
 * One transaction a task, as the engine's loop: complete the task in hand (:id at :ver, only
 * if this agent holds it, started), claim and start the next. A client's first transaction
 * claims its first task alone.
 */
export function floorScript(variant: FloorVariant): string {
  const claim = `WITH c AS (SELECT task_id FROM q_ready WHERE queue = 'default' ORDER BY priority DESC, created_at, task_id LIMIT 1 FOR UPDATE SKIP LOCKED), d AS (DELETE FROM q_ready r USING c WHERE r.task_id = c.task_id RETURNING r.task_id), u AS (UPDATE q_state s SET status = 'started', owner_id = :agent::uuid, lease_until = now() + interval '120 seconds', attempt = s.attempt + 1, version = s.version + 2, updated_at = now() FROM d WHERE s.task_id = d.task_id AND s.status = 'queued' RETURNING s.task_id, s.version), h AS (INSERT INTO q_held (task_id, queue, lease_until) SELECT task_id, 'default', now() + interval '120 seconds' FROM u) SELECT task_id AS next_id, version AS next_ver FROM u \\gset`;
  const probe = `SELECT EXISTS (SELECT 1 FROM q_held WHERE queue = 'default' AND lease_until <= now()) AS lapsed;`;
  const complete = [
    `UPDATE q_state SET status = 'done', lease_until = NULL, version = version + 1, updated_at = now() WHERE task_id = :id AND status = 'started' AND owner_id = :agent::uuid AND version = :ver;`,
    `DELETE FROM q_held WHERE task_id = :id;`,
  ];
  const notify = `pg_notify('claimboard_events', json_build_object('first', min(id)::text, 'last', max(id)::text, 'count', count(*))::text)`;
  const events = variant === "floor-no-events"
    ? [`SELECT pg_notify('claimboard_events', json_build_object('task', :id::text, 'next', :next_id::text)::text);`]
    : [`WITH inserted AS (INSERT INTO q_events (task_id, queue, type, actor_id, payload) VALUES (:id, 'default', 'completed', :agent::uuid, '{"status":"done"}'), (:next_id, 'default', 'claimed', :agent::uuid, '{"status":"claimed","leaseSeconds":120}'), (:next_id, 'default', 'started', :agent::uuid, '{"status":"started"}') RETURNING id) SELECT ${notify} FROM inserted;`];
  const first = [`WITH inserted AS (INSERT INTO q_events (task_id, queue, type, actor_id) VALUES (:next_id, 'default', 'claimed', :agent::uuid), (:next_id, 'default', 'started', :agent::uuid) RETURNING id) SELECT ${notify} FROM inserted;`];
  return [
    "\\if :id = 0", "BEGIN;", probe, claim, ...(variant === "floor-no-events" ? [] : first), "COMMIT;", "\\set id :next_id", "\\set ver :next_ver", "\\endif",
    "BEGIN;", ...complete, probe, claim, ...events, "COMMIT;", "\\set id :next_id", "\\set ver :next_ver",
  ].join("\n") + "\n";
}
