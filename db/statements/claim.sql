-- claim (POST /tasks/{id}/claim, claim_task)
-- One guarded UPDATE of the named task, queued or with a lapsed lease.
--
-- Rendered from what the engine sends (db/statements/statements.test.ts), parameters as $n.
-- Do not edit: change the engine, then re-render every file with
--   UPDATE_STATEMENTS=1 npx vitest run db/statements/statements.test.ts

BEGIN;

SET LOCAL lock_timeout = '1000ms';

SELECT pg_advisory_xact_lock(hashtext('claimboard:reservations')) FROM tasks WHERE id = $1::bigint AND reserves IS NOT NULL;

WITH candidates AS MATERIALIZED (
      SELECT id, status, owner_id, needs_check, side_effect_recorded, priority, created_at, progress, progress_at FROM task_state
      WHERE id = $1::bigint AND version = $2
        AND EXISTS (SELECT 1 FROM queues WHERE queues.name = task_state.queue AND claimants IN ($3::claimants, $4::claimants)
                      AND archived_at IS NULL)
        AND (status = 'queued'
             OR (status IN ('claimed', 'started') AND lease_until <= now()
                 AND NOT attempt_limited
                 AND NOT EXISTS (SELECT 1 FROM queues
                                 WHERE queues.name = task_state.queue
                                   AND (breaker_tripped_at IS NOT NULL
                                        OR task_state.lease_until + make_interval(secs => queues.lock_delay_seconds) > now()))
                 AND NOT EXISTS (
SELECT 1 FROM actors holder JOIN queues grace ON grace.name = task_state.queue
WHERE holder.id = task_state.owner_id AND holder.kind = 'user' AND grace.person_grace_seconds > 0
  AND task_state.lease_until + make_interval(secs => grace.person_grace_seconds) > now())))
  AND (status <> 'queued' OR (blocked_by = '{}'::bigint[] AND (not_before IS NULL OR not_before <= now())))
  AND NOT EXISTS (SELECT 1 FROM queues WHERE queues.name = task_state.queue AND queues.paused) AND task_state.reserves IS NULL AND NOT EXISTS (
SELECT 1 FROM agent_tokens cap
WHERE cap.actor_id = $5::uuid AND cap.monthly_budget_limit IS NOT NULL
  AND (SELECT coalesce(sum(s.spent), 0) FROM actor_spend s
WHERE s.actor_id = cap.actor_id AND s.month = date_trunc('month', now() AT TIME ZONE 'UTC')::date AND s.unit IN (cap.monthly_budget_unit, '')) >= cap.monthly_budget_limit)
      FOR UPDATE OF task_state),
  decided AS (
    SELECT c.id,
           c.status AS previous_status,
           c.owner_id AS previous_owner_id,
           -- c, not t: only the locked candidate row is current; t here is the statement's
           -- snapshot, which may predate a release that set needs_check (same status).
           c.needs_check OR (c.status <> 'queued' AND c.side_effect_recorded) AS needs_check,
           coalesce($6::int, q.lease_seconds) AS lease_seconds,
           -- The lapsed attempt's progress, for the system's hand-off note (none from a queued task).
           c.progress, CASE WHEN c.status <> 'queued' THEN c.progress_at END AS progress_at,
           -- The lapsed attempt recorded an effect: its open intents become unknown (the ledger).
           c.status <> 'queued' AND c.side_effect_recorded AS lapsed_effects
    FROM candidates c
    JOIN task_state t ON t.id = c.id
    JOIN queues q ON q.name = t.queue),
  claimed AS (
  UPDATE task_state t SET
    status = CASE WHEN $7::boolean AND NOT d.needs_check THEN 'started' ELSE 'claimed' END::task_status,
    owner_id = $8::uuid,
    lease_until = now() + make_interval(secs => d.lease_seconds),
    lease_seconds = d.lease_seconds,
    needs_check = d.needs_check,
    side_effect_recorded = false,
    unknown_effects = t.unknown_effects + t.intended_effects,
    intended_effects = 0,
    not_before = NULL, -- it was due: once claimed, a task waits for nothing until it fails again
attempt = t.attempt + 1, claimed_at = now(), attempt_limited = false, progress = NULL, progress_at = NULL, renewals_without_progress = 0,
handoff = CASE WHEN d.progress_at IS NULL THEN t.handoff ELSE jsonb_build_object(
  'summary', left(CASE jsonb_typeof(d.progress) WHEN 'string' THEN d.progress #>> '{}' ELSE d.progress::text END, $9),
  'next', NULL, 'artifacts', '[]'::jsonb, 'by', $10::jsonb) END,
handoff_at = CASE WHEN d.progress_at IS NULL THEN t.handoff_at ELSE now() END,
    version = t.version + CASE WHEN d.previous_status <> 'queued' THEN 2 ELSE 1 END,
    updated_at = now(),
    sets_mark = t.sets_mark + 1 -- its set rows are written beside it (claimedSets)
  FROM decided d
  WHERE t.id = d.id
  RETURNING t.*, d.previous_status, d.previous_owner_id, d.progress_at IS NOT NULL AS wrote_handoff, d.lapsed_effects),
  left_queued AS (DELETE FROM task_queued r USING claimed WHERE r.id = claimed.id AND claimed.previous_status = 'queued'),
  now_held AS (
    INSERT INTO task_held (id, queue, priority, created_at, owner_id)
    SELECT id, queue, priority, created_at, owner_id FROM claimed WHERE previous_status = 'queued'
  ),
  now_leased AS (
    INSERT INTO task_lease (id, queue, lease_until, attempt_limited)
    SELECT id, queue, lease_until, attempt_limited FROM claimed WHERE previous_status = 'queued'
  ),
  still_held AS (
    UPDATE task_held h SET owner_id = claimed.owner_id
    FROM claimed WHERE h.id = claimed.id AND claimed.previous_status <> 'queued' AND h.owner_id <> claimed.owner_id
  ),
  still_leased AS (
    UPDATE task_lease l SET lease_until = claimed.lease_until, attempt_limited = claimed.attempt_limited
    FROM claimed WHERE l.id = claimed.id AND claimed.previous_status <> 'queued'
  )
  SELECT claimed.*, c.title, c.description, c.payload FROM claimed LEFT JOIN task_content c ON c.id = claimed.id;

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
