-- complete many (POST /completions)
-- A batch as one JSON parameter, so every batch size shares the statement.
--
-- Rendered from what the engine sends (db/statements/statements.test.ts), parameters as $n.
-- Do not edit: change the engine, then re-render every file with
--   UPDATE_STATEMENTS=1 npx vitest run db/statements/statements.test.ts

BEGIN;

WITH item AS (SELECT id, version, result, digest FROM jsonb_to_recordset($1::jsonb)
        AS i(id bigint, version int, result jsonb, digest text)), locked AS MATERIALIZED (
    SELECT t.id, t.side_effect_recorded FROM task_state t JOIN item ON item.id = t.id
    ORDER BY t.id
    FOR UPDATE OF t
  ), written AS (
  UPDATE task_state t SET status = CASE WHEN (q.review = 'everyone' OR (q.review = 'agents' AND $2::boolean)) THEN 'in_review' ELSE 'done' END::task_status,
                     submission = CASE WHEN (q.review = 'everyone' OR (q.review = 'agents' AND $3::boolean)) THEN jsonb_build_object(
                       'result', item.result, 'digest', item.digest, 'by', $4::jsonb,
                       'attempt', t.attempt, 'at', to_char(now()::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                     ) ELSE t.submission END,
                     lease_until = NULL, lease_seconds = NULL, side_effect_recorded = false,
                     intended_effects = 0, version = t.version + 1, updated_at = now(), sets_mark = t.sets_mark + 1
  FROM locked l, item, queues q
  WHERE t.id = l.id AND item.id = t.id AND q.name = t.queue
    AND coalesce(t.status = 'started' AND t.owner_id = $5::uuid AND t.version = item.version AND t.unknown_effects = 0 AND (t.unread_from IS NULL OR NOT EXISTS (
  SELECT 1 FROM task_events u WHERE u.task_id = t.id AND u.type = 'commented' AND u.id >= t.unread_from AND u.actor_id <> t.owner_id)) AND NOT ((q.review = 'everyone' OR (q.review = 'agents' AND $6::boolean)) AND (item.result IS NULL OR item.result IN ('null'::jsonb, '{}'::jsonb, '[]'::jsonb)
OR (jsonb_typeof(item.result) = 'string' AND (item.result #>> '{}') ~ '^[[:space:]]*$'))), false)
  RETURNING t.*, l.side_effect_recorded AS had_effects
  ), left_held AS (DELETE FROM task_held h USING written WHERE h.id = written.id),
  left_leased AS (DELETE FROM task_lease l USING written WHERE l.id = written.id)
  SELECT written.*, c.title, c.description, c.payload FROM written LEFT JOIN task_content c ON c.id = written.id;

SELECT EXISTS (SELECT 1 FROM task_state WHERE blocked_by && $1::bigint[] AND blocked_by <> '{}'::bigint[]) AS any;

WITH inserted AS (
  INSERT INTO task_events (task_id, queue, type, actor_id, payload, created_at)
  VALUES ($1::bigint, $2, $3::event_type,
            $4::uuid, $5::jsonb, now()), ($6::bigint, $7, $8::event_type,
            $9::uuid, $10::jsonb, now())
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
SELECT pg_notify($11, json_build_object(
         'first', min(id)::text, 'last', max(id)::text, 'count', count(*))::text),
       array_agg(id::text ORDER BY id) AS ids
FROM inserted;

COMMIT;
