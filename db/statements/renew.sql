-- renew (POST /tasks/{id}/heartbeat, report_progress)
-- The lease extended by its own length; the version stays.
--
-- Rendered from what the engine sends (db/statements/statements.test.ts), parameters as $n.
-- Do not edit: change the engine, then re-render every file with
--   UPDATE_STATEMENTS=1 npx vitest run db/statements/statements.test.ts

BEGIN;

WITH written AS (
  WITH before AS MATERIALIZED (
    SELECT id, status, owner_id, needs_check, side_effect_recorded FROM task_state
    WHERE id = $1::bigint
    FOR UPDATE
  )
  UPDATE task_state t SET lease_until = now() + make_interval(secs => t.lease_seconds), updated_at = now() , renewals_without_progress = CASE WHEN q.max_renewals_without_progress = 0 THEN 0 ELSE t.renewals_without_progress + 1 END
  FROM before b, queues q
  WHERE t.id = b.id AND q.name = t.queue AND coalesce(t.status IN ('claimed', 'started') AND t.owner_id = $2::uuid AND t.version = $3 AND t.lease_until > now() AND
(q.max_attempt_seconds IS NULL OR t.claimed_at IS NULL
 OR now() + make_interval(secs => t.lease_seconds) <= t.claimed_at + make_interval(secs => q.max_attempt_seconds)) AND (q.max_renewals_without_progress = 0 OR t.renewals_without_progress < q.max_renewals_without_progress), false)
  RETURNING t.*, b.status AS previous_status, b.owner_id AS previous_owner_id,
            b.needs_check AS previous_needs_check, b.side_effect_recorded AS previous_side_effect_recorded)
SELECT written.*, c.title, c.description, c.payload FROM written LEFT JOIN task_content c ON c.id = written.id;

WITH inserted AS (
  INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
  VALUES ($1::bigint, $2, $3::event_type,
            $4::uuid, $5::jsonb, now())
  RETURNING id, task_id, queue, type, actor_id, payload, created_at
), outbox AS (
  -- The webhooks' outbox (lib/webhooks): a delivery per matching live webhook, committed
  -- with its event or not at all. With no webhook registered this joins an empty table.
  -- Nothing for a webhook paused because its authority ended (lib/auth/authority.ts).
  INSERT INTO webhook_deliveries (webhook_id, event_id, task_id, queue, type, actor_id, payload, event_at, next_attempt_at)
  SELECT w.id, i.id, i.task_id, i.queue, i.type, i.actor_id, i.payload, i.created_at, i.created_at
  FROM inserted i JOIN webhooks w
    ON w.disabled_at IS NULL AND w.authority_ended_at IS NULL AND (w.events && ARRAY[i.type::text, CASE WHEN i.type = 'claimed' AND i.payload @> '{"started": true}' THEN 'started' END, CASE WHEN i.type = 'approved' THEN 'completed' END] OR '*' = ANY (w.events))
   AND (w.queues IS NULL OR i.queue = ANY (w.queues))
)
SELECT pg_notify($6, json_build_object(
         'first', min(id)::text, 'last', max(id)::text, 'count', count(*))::text),
       array_agg(id::text ORDER BY id) AS ids
FROM inserted;

COMMIT;
