import { sql, type SQL } from "drizzle-orm";

/**
 * The step times of docs/insights.md "Definitions", over a relation `source` of a task's
 * events each with its partners (columns queue, population, type, starts, created_at, tx_id,
 * prev_type, prev_at, prev_tx, claimed_at, started_at). `starts`: the event is a start — a
 * `started` event, or a claim that started in the same act (one `claimed` event with
 * `started: true`, both facts at one instant: its claim→start is zero, as a pair's was). One definition for the exact read
 * (distributions.ts), the hourly rollup and the raw edges of a rolled-up window
 * (rollup.ts, rolled.ts). Each sample carries the instant of its later event.
 */
export function samplesFrom(source: SQL): SQL {
  return sql`
      SELECT queue, population, 'claim_to_start' AS metric, created_at, created_at - claimed_at AS d FROM ${source}
        WHERE starts AND claimed_at IS NOT NULL
      UNION ALL
      SELECT queue, population, 'start_to_complete', created_at, created_at - started_at FROM ${source}
        WHERE type = 'completed' AND started_at IS NOT NULL
      UNION ALL
      SELECT queue, population, 'heartbeat_interval', created_at, created_at - prev_at FROM ${source}
        WHERE prev_type IN ('claimed', 'started', 'check_confirmed', 'heartbeat', 'side_effect')
          AND type IN ('started', 'check_confirmed', 'heartbeat', 'side_effect', 'completed', 'failed', 'released')
          AND tx_id <> prev_tx
      UNION ALL
      SELECT queue, population, 'time_in_queue', created_at, created_at - prev_at FROM ${source}
        WHERE type = 'claimed' AND prev_type IN ('created', 'released', 'requeued')`;
}

/** Whether an event of `alias` is a start: a `started` event, or a claim with `started: true`. */
const startsOf = (alias: string) => sql.raw(`(${alias}.type = 'started' OR (${alias}.type = 'claimed' AND ${alias}.payload @> '{"started": true}'))`);

/**
 * `ev`: each queue's task events in [a, b) with their partners within the range (window
 * functions over the task's events): one range of task_events_time (BRIN) per queue, LATERAL
 * with OFFSET 0 — flattened, the planner may scan the whole log. `queues`: a condition on
 * q.name. The exact read (distributions.ts) takes its samples from it; pairedEvents adds
 * the partners before the range.
 */
export function eventsInRange(a: SQL, b: SQL, queues: SQL): SQL {
  return sql`
    ev AS MATERIALIZED (
      SELECT e.task_id, e.id, e.queue, e.type, e.starts, e.created_at, e.tx_id,
             CASE WHEN a.kind = 'user' THEN 'people' ELSE 'agents' END AS population,
             row_number() OVER w AS nth,
             lag(e.type) OVER w AS prev_type,
             lag(e.created_at) OVER w AS prev_at,
             lag(e.tx_id) OVER w AS prev_tx,
             max(e.created_at) FILTER (WHERE e.type = 'claimed') OVER w AS claimed_at,
             max(e.created_at) FILTER (WHERE e.starts) OVER w AS started_at
      FROM queues q
      CROSS JOIN LATERAL (
        SELECT task_id, id, queue, type, ${startsOf("task_events")} AS starts, created_at, tx_id, actor_id FROM task_events
        WHERE queue = q.name AND created_at >= ${a} AND created_at < ${b} AND task_id IS NOT NULL
        OFFSET 0
      ) e
      JOIN actors a ON a.id = e.actor_id
      WHERE ${queues}
      WINDOW w AS (PARTITION BY e.task_id ORDER BY e.id)
    )`;
}

/**
 * Each queue's task events in [a, b), paired with the task's earlier events: within the
 * range by window functions (the exact read's way), and — for a task's first event in the
 * range — by a short walk back along task_events_task to its events since `lookFrom`
 * (an hour's samples whose earlier event lies in an earlier hour; '-infinity' for a rollup).
 * `queues`: a condition on q.name (the queues to read). A CTE list ending in `paired`,
 * ready for samplesFrom(sql`paired`).
 */
export function pairedEvents(a: SQL, b: SQL, lookFrom: SQL, queues: SQL): SQL {
  return sql`
    ${eventsInRange(a, b, queues)},
    paired AS (
      SELECT ev.queue, ev.population, ev.type, ev.starts, ev.created_at, ev.tx_id,
             coalesce(ev.prev_type, p.type) AS prev_type,
             coalesce(ev.prev_at, p.created_at) AS prev_at,
             coalesce(ev.prev_tx, p.tx_id) AS prev_tx,
             CASE WHEN ev.starts AND ev.claimed_at IS NULL THEN
               (SELECT max(c.created_at) FROM task_events c
                 WHERE c.task_id = ev.task_id AND c.queue = ev.queue AND c.id < ev.id AND c.type = 'claimed' AND c.created_at >= ${lookFrom})
               ELSE ev.claimed_at END AS claimed_at,
             CASE WHEN ev.type = 'completed' AND ev.started_at IS NULL THEN
               (SELECT max(s.created_at) FROM task_events s
                 WHERE s.task_id = ev.task_id AND s.queue = ev.queue AND s.id < ev.id AND ${startsOf("s")} AND s.created_at >= ${lookFrom})
               ELSE ev.started_at END AS started_at
      FROM ev
      LEFT JOIN LATERAL (
        SELECT p.type, p.created_at, p.tx_id FROM task_events p
        WHERE ev.nth = 1 AND ev.type <> 'created'
          AND p.task_id = ev.task_id AND p.queue = ev.queue AND p.id < ev.id AND p.created_at >= ${lookFrom}
        ORDER BY p.id DESC LIMIT 1
      ) p ON true
    )`;
}
