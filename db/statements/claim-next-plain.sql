-- claim-next, plain (a queue with a lapsed lease)
-- The gate is shut, so the queue's state is read, lapses at their ceiling are struck, and the
-- plain claim walks queued, due and lapsed tasks.
--
-- Rendered from what the engine sends (db/statements/statements.test.ts), parameters as $n.
-- Do not edit: change the engine, then re-render every file with
--   UPDATE_STATEMENTS=1 npx vitest run db/statements/statements.test.ts

BEGIN;

WITH gate AS MATERIALIZED (SELECT EXISTS (
SELECT 1 FROM queues q
WHERE q.name = $1 AND q.archived_at IS NULL AND NOT q.paused AND q.claimants IN ($2::claimants, $3::claimants)
  AND NOT EXISTS (
SELECT 1 FROM task_lease lease
WHERE lease.queue = q.name AND lease.lease_until <= now()) AND NOT EXISTS (
SELECT 1 FROM task_state t
WHERE t.reserving_status IN ('queued', 'claimed', 'started') AND t.queue = q.name) AND NOT EXISTS (
SELECT 1 FROM agent_tokens cap
WHERE cap.actor_id = $4::uuid AND cap.monthly_budget_limit IS NOT NULL
  AND (SELECT coalesce(sum(s.spent), 0) FROM actor_spend s
WHERE s.actor_id = cap.actor_id AND s.month = date_trunc('month', now() AT TIME ZONE 'UTC')::date AND s.unit IN (cap.monthly_budget_unit, '')) >= cap.monthly_budget_limit)) AS open),
  candidates AS MATERIALIZED (SELECT * FROM (
  WITH queued AS MATERIALIZED (
    -- The claimable set (task_queued): its task_queued_order holds only tasks that wait on
    -- nothing, with no notBefore, so the walk never steps over a blocked or waiting row.
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.needs_check, task_state.side_effect_recorded, task_state.priority, task_state.created_at, task_state.progress, task_state.progress_at FROM task_queued ready JOIN task_state ON task_state.id = ready.id
    WHERE ready.queue = $5 AND ready.not_before IS NULL
      AND coalesce(task_state.status = 'queued' AND task_state.blocked_by = '{}'::bigint[] AND task_state.not_before IS NULL, false)  AND task_state.reserves IS NULL
    ORDER BY ready.priority DESC, ready.created_at, ready.id
    LIMIT 1
    FOR UPDATE OF task_state SKIP LOCKED
  ), due AS MATERIALIZED (
    -- Scheduled and backed-off tasks, walked by task_queued_scheduled in not_before order: a
    -- range read that stops at the first not-yet-due row or at the limit, however many wait.
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.needs_check, task_state.side_effect_recorded, task_state.priority, task_state.created_at, task_state.progress, task_state.progress_at FROM task_queued ready JOIN task_state ON task_state.id = ready.id
    WHERE ready.queue = $6 AND ready.not_before IS NOT NULL AND ready.not_before <= now()
      AND coalesce(task_state.status = 'queued' AND task_state.blocked_by = '{}'::bigint[] AND task_state.not_before <= now(), false)  AND task_state.reserves IS NULL
    ORDER BY ready.not_before
    LIMIT 1
    FOR UPDATE OF task_state SKIP LOCKED
  ), lapsed AS MATERIALIZED (
    -- The held set (task_held) in claim order, each lease read from task_lease by key: "(…) IS
    -- TRUE" keeps this a walk of task_held_order that stops at the limit: offered
    -- task_lease_until, the planner may fetch every lapsed lease and sort them (220 ms for a
    -- batch in a 25,000-lease storm, against 0.4 ms for the walk).
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.needs_check, task_state.side_effect_recorded, task_state.priority, task_state.created_at, task_state.progress, task_state.progress_at
    FROM task_held held JOIN task_lease lease ON lease.id = held.id JOIN task_state ON task_state.id = held.id
    WHERE held.queue = $7 AND (lease.lease_until <= now()) IS TRUE
      AND coalesce(task_state.status IN ('claimed', 'started') AND task_state.lease_until <= now(), false)
       AND task_state.reserves IS NULL
    ORDER BY held.priority DESC, held.created_at, held.id
    LIMIT 0
    FOR UPDATE OF task_state SKIP LOCKED
  )
  SELECT * FROM (SELECT * FROM queued UNION ALL SELECT * FROM due UNION ALL SELECT * FROM lapsed) candidate_sets
  ORDER BY priority DESC, created_at, id
  LIMIT 1) walked WHERE (SELECT open FROM gate)),
  decided AS (
    SELECT c.id,
           c.status AS previous_status,
           c.owner_id AS previous_owner_id,
           -- c, not t: only the locked candidate row is current; t here is the statement's
           -- snapshot, which may predate a release that set needs_check (same status).
           c.needs_check OR (c.status <> 'queued' AND c.side_effect_recorded) AS needs_check,
           coalesce($8::int, q.lease_seconds) AS lease_seconds,
           -- The lapsed attempt's progress, for the system's hand-off note (none from a queued task).
           c.progress, CASE WHEN c.status <> 'queued' THEN c.progress_at END AS progress_at,
           -- The lapsed attempt recorded an effect: its open intents become unknown (the ledger).
           c.status <> 'queued' AND c.side_effect_recorded AS lapsed_effects
    FROM candidates c
    JOIN task_state t ON t.id = c.id
    JOIN queues q ON q.name = t.queue),
  claimed AS (
  UPDATE task_state t SET
    status = CASE WHEN $9::boolean AND NOT d.needs_check THEN 'started' ELSE 'claimed' END::task_status,
    owner_id = $10::uuid,
    lease_until = now() + make_interval(secs => d.lease_seconds),
    lease_seconds = d.lease_seconds,
    needs_check = d.needs_check,
    side_effect_recorded = false,
    unknown_effects = t.unknown_effects + t.intended_effects,
    intended_effects = 0,
    not_before = NULL, -- it was due: once claimed, a task waits for nothing until it fails again
attempt = t.attempt + 1, claimed_at = now(), attempt_limited = false, progress = NULL, progress_at = NULL, renewals_without_progress = 0,
handoff = CASE WHEN d.progress_at IS NULL THEN t.handoff ELSE jsonb_build_object(
  'summary', left(CASE jsonb_typeof(d.progress) WHEN 'string' THEN d.progress #>> '{}' ELSE d.progress::text END, $11),
  'next', NULL, 'artifacts', '[]'::jsonb, 'by', $12::jsonb) END,
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
  )
  SELECT gate.open AS gate_open, claimed.*, c.title, c.description, c.payload
  FROM gate LEFT JOIN claimed ON true LEFT JOIN task_content c ON c.id = claimed.id;

SELECT q.*,
    EXISTS (
SELECT 1 FROM task_lease lease
WHERE lease.queue = q.name AND lease.lease_until <= now()) AS has_expired_lease,
    -- Whether a claim here may take reservations.
    EXISTS (
SELECT 1 FROM task_state t
WHERE t.reserving_status IN ('queued', 'claimed', 'started') AND t.queue = q.name) AS has_reserving_task,
    -- A probe of agent_tokens_capped, which holds only capped tokens (lib/tasks/budgets/cap.ts).
    EXISTS (
SELECT 1 FROM agent_tokens cap
WHERE cap.actor_id = $1::uuid AND cap.monthly_budget_limit IS NOT NULL
  AND (SELECT coalesce(sum(s.spent), 0) FROM actor_spend s
WHERE s.actor_id = cap.actor_id AND s.month = date_trunc('month', now() AT TIME ZONE 'UTC')::date AND s.unit IN (cap.monthly_budget_unit, '')) >= cap.monthly_budget_limit) AS claimer_over_budget
  FROM queues q
  WHERE q.name = $2;

WITH written AS (
  WITH capped AS MATERIALIZED (
    -- Found in the held set's leases (task_lease_attempt_limited), locked and rechecked on task_state (recheck, claim-rows.ts).
    SELECT s.id, s.owner_id, s.progress, s.progress_at, s.side_effect_recorded
    FROM task_lease lease JOIN task_state s ON s.id = lease.id
    WHERE lease.queue = $1 AND lease.attempt_limited AND lease.lease_until <= now()
      AND coalesce(s.attempt_limited AND s.status IN ('claimed', 'started') AND s.lease_until <= now(), false)
    ORDER BY lease.lease_until
    LIMIT 100
    FOR UPDATE OF s SKIP LOCKED
  )
  UPDATE task_state t SET
status = CASE WHEN t.failure_count + 1 >= q.max_failures THEN 'escalated' ELSE 'queued' END::task_status,
owner_id = NULL,
lease_until = NULL,
lease_seconds = NULL,
needs_check = t.needs_check OR t.side_effect_recorded,
side_effect_recorded = false,
unknown_effects = t.unknown_effects + t.intended_effects,
intended_effects = 0,
claimed_at = NULL, attempt_limited = false, progress = NULL, progress_at = NULL, renewals_without_progress = 0,
version = t.version + 1,
updated_at = now(),
handoff = CASE WHEN c.progress_at IS NULL THEN t.handoff ELSE jsonb_build_object(
  'summary', left(CASE jsonb_typeof(c.progress) WHEN 'string' THEN c.progress #>> '{}' ELSE c.progress::text END, $2),
  'next', NULL, 'artifacts', '[]'::jsonb, 'by', $3::jsonb) END,
handoff_at = CASE WHEN c.progress_at IS NULL THEN t.handoff_at ELSE now() END,
    failure_count = t.failure_count + 1
  FROM capped c, queues q
  WHERE t.id = c.id AND q.name = t.queue
  RETURNING t.*, c.owner_id AS previous_owner_id, c.progress_at IS NOT NULL AS wrote_handoff, c.side_effect_recorded AS lapsed_effects)
SELECT written.*, c.title, c.description, c.payload FROM written LEFT JOIN task_content c ON c.id = written.id;

SELECT
(SELECT count(*)::int FROM task_events
  WHERE queue = $1 AND type = 'lease_expired'
    AND created_at > now() - make_interval(secs => $2)
    AND id > $3::bigint) AS recent_expiries,
-- The log's events dated ahead of the clock, one block range of task_events_time (none,
-- unless the clock went back), then this queue's among them after the reset. OFFSET 0
-- keeps the queue's conditions out of that scan: pushed in, the planner ANDs in a bitmap
-- of every event of the queue (task_events_queue_feed).
EXISTS (SELECT 1 FROM (SELECT queue, id FROM task_events
    WHERE created_at > now() + make_interval(secs => $4) OFFSET 0) ahead
  WHERE ahead.queue = $5 AND ahead.id > $6::bigint) AS clock_behind;

WITH candidates AS MATERIALIZED (
  WITH queued AS MATERIALIZED (
    -- The claimable set (task_queued): its task_queued_order holds only tasks that wait on
    -- nothing, with no notBefore, so the walk never steps over a blocked or waiting row.
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.needs_check, task_state.side_effect_recorded, task_state.priority, task_state.created_at, task_state.progress, task_state.progress_at FROM task_queued ready JOIN task_state ON task_state.id = ready.id
    WHERE ready.queue = $1 AND ready.not_before IS NULL
      AND coalesce(task_state.status = 'queued' AND task_state.blocked_by = '{}'::bigint[] AND task_state.not_before IS NULL, false)  AND task_state.reserves IS NULL
    ORDER BY ready.priority DESC, ready.created_at, ready.id
    LIMIT 1
    FOR UPDATE OF task_state SKIP LOCKED
  ), due AS MATERIALIZED (
    -- Scheduled and backed-off tasks, walked by task_queued_scheduled in not_before order: a
    -- range read that stops at the first not-yet-due row or at the limit, however many wait.
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.needs_check, task_state.side_effect_recorded, task_state.priority, task_state.created_at, task_state.progress, task_state.progress_at FROM task_queued ready JOIN task_state ON task_state.id = ready.id
    WHERE ready.queue = $2 AND ready.not_before IS NOT NULL AND ready.not_before <= now()
      AND coalesce(task_state.status = 'queued' AND task_state.blocked_by = '{}'::bigint[] AND task_state.not_before <= now(), false)  AND task_state.reserves IS NULL
    ORDER BY ready.not_before
    LIMIT 1
    FOR UPDATE OF task_state SKIP LOCKED
  ), lapsed AS MATERIALIZED (
    -- The held set (task_held) in claim order, each lease read from task_lease by key: "(…) IS
    -- TRUE" keeps this a walk of task_held_order that stops at the limit: offered
    -- task_lease_until, the planner may fetch every lapsed lease and sort them (220 ms for a
    -- batch in a 25,000-lease storm, against 0.4 ms for the walk).
    SELECT task_state.id, task_state.status, task_state.owner_id, task_state.needs_check, task_state.side_effect_recorded, task_state.priority, task_state.created_at, task_state.progress, task_state.progress_at
    FROM task_held held JOIN task_lease lease ON lease.id = held.id JOIN task_state ON task_state.id = held.id
    WHERE held.queue = $3 AND (lease.lease_until <= now()) IS TRUE
      AND coalesce(task_state.status IN ('claimed', 'started') AND task_state.lease_until <= now(), false)
       AND task_state.reserves IS NULL AND NOT EXISTS (
SELECT 1 FROM actors holder JOIN queues grace ON grace.name = task_state.queue
WHERE holder.id = task_state.owner_id AND holder.kind = 'user' AND grace.person_grace_seconds > 0
  AND task_state.lease_until + make_interval(secs => grace.person_grace_seconds) > now())
    ORDER BY held.priority DESC, held.created_at, held.id
    LIMIT 1
    FOR UPDATE OF task_state SKIP LOCKED
  )
  SELECT * FROM (SELECT * FROM queued UNION ALL SELECT * FROM due UNION ALL SELECT * FROM lapsed) candidate_sets
  ORDER BY priority DESC, created_at, id
  LIMIT 1),
  decided AS (
    SELECT c.id,
           c.status AS previous_status,
           c.owner_id AS previous_owner_id,
           -- c, not t: only the locked candidate row is current; t here is the statement's
           -- snapshot, which may predate a release that set needs_check (same status).
           c.needs_check OR (c.status <> 'queued' AND c.side_effect_recorded) AS needs_check,
           coalesce($4::int, q.lease_seconds) AS lease_seconds,
           -- The lapsed attempt's progress, for the system's hand-off note (none from a queued task).
           c.progress, CASE WHEN c.status <> 'queued' THEN c.progress_at END AS progress_at,
           -- The lapsed attempt recorded an effect: its open intents become unknown (the ledger).
           c.status <> 'queued' AND c.side_effect_recorded AS lapsed_effects
    FROM candidates c
    JOIN task_state t ON t.id = c.id
    JOIN queues q ON q.name = t.queue),
  claimed AS (
  UPDATE task_state t SET
    status = CASE WHEN $5::boolean AND NOT d.needs_check THEN 'started' ELSE 'claimed' END::task_status,
    owner_id = $6::uuid,
    lease_until = now() + make_interval(secs => d.lease_seconds),
    lease_seconds = d.lease_seconds,
    needs_check = d.needs_check,
    side_effect_recorded = false,
    unknown_effects = t.unknown_effects + t.intended_effects,
    intended_effects = 0,
    not_before = NULL, -- it was due: once claimed, a task waits for nothing until it fails again
attempt = t.attempt + 1, claimed_at = now(), attempt_limited = false, progress = NULL, progress_at = NULL, renewals_without_progress = 0,
handoff = CASE WHEN d.progress_at IS NULL THEN t.handoff ELSE jsonb_build_object(
  'summary', left(CASE jsonb_typeof(d.progress) WHEN 'string' THEN d.progress #>> '{}' ELSE d.progress::text END, $7),
  'next', NULL, 'artifacts', '[]'::jsonb, 'by', $8::jsonb) END,
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
