import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import type { UserRole } from "@/db/schema";
import { heldBy, partyOf, raiseBudget, answerableQueues } from "@/lib/tasks";
import { ANSWERERS, personStanding } from "@/lib/tasks/model";
import { NOTIFIED_TYPES, type NotificationFact, type NotifiedType } from "./kinds";

// Which events of the log are a fact for a person, decided on the server from the log itself
// (docs/attention.md, "Notifications"). One rule per event type; the board sends the ids
// of the events of these types it heard, each with its task's, and shows what comes back. A
// new kind of fact is one more row here (question_asked is read by type name, so the rule
// works once that event exists).

export interface Person {
  actorId: string;
  role: UserRole;
}

/**
 * An event the board heard, named as the log finds it: by its task and its id. The log has no
 * index on the id alone (migration 0017): found by id, every month of it was read.
 */
export interface EventRef {
  id: string;
  taskId: string;
}

type Row = {
  id: string;
  task_id: string | null;
  queue: string;
  type: NotifiedType;
  actor_id: string;
  actor_name: string;
  payload: Record<string, unknown>;
  title: string | null;
  status: string | null;
  /** The previous owner a claim took the task over from (its transaction's lease_expired). */
  took_over_from: string | null;
  /** The person, or an OAuth agent of theirs, held an attempt of the task (a claimed event; the reviewer rule's party). */
  held: boolean;
  /** The kinds the person turned off (users.notifications_off). */
  off: string[] | null;
};

/** What a rule knows besides the row: whether the person is asked the questions of the row's queue. */
interface Known {
  answers: boolean;
}

type Rule = (row: Row, person: Person, known: Known) => Omit<NotificationFact, "eventId" | "taskId"> | null;

const titled = (row: Row) => `“${row.title ?? `task ${row.task_id}`}”`;

const RULES: Record<NotifiedType, Rule> = {
  // A review waiting for them: a submission they may review (not theirs, never held by them), still in review.
  submitted: (row) =>
    !row.held && row.status === "in_review"
      ? { kind: "review_waiting", title: "A review waits for you", body: `${row.actor_name} submitted ${titled(row)} in ${row.queue}` }
      : null,
  // A task of theirs taken over: a claim of it after their lease lapsed.
  claimed: (row, person) =>
    row.took_over_from === person.actorId
      ? { kind: "takeover", title: "Your task was taken over", body: `${row.actor_name} took over ${titled(row)} after your lease lapsed` }
      : null,
  // …or a supervisor took it back from them.
  released: (row, person) =>
    row.payload.force === true && row.payload.previousOwnerId === person.actorId
      ? { kind: "takeover", title: "Your task was taken back", body: `${row.actor_name} released ${titled(row)} from you` }
      : null,
  // A question they may answer: every person the queue's questions are asked of (listOpenQuestions' rule),
  // less the party that holds the task (answerable.ts: a party never answers its own question).
  question_asked: (row, _person, known) =>
    known.answers && !row.held && row.payload.kind !== "budget"
      ? { kind: "question", title: `A question in ${row.queue}`, body: `${row.actor_name} asks about ${titled(row)}` }
      : null,
  // A task parked on its budget: for whoever may raise it (raiseBudget's who).
  budget_reached: (row, person) =>
    raiseBudget.who.includes(personStanding(person.role)) && row.status === "awaiting_input"
      ? { kind: "budget", title: "A budget waits for you", body: `${titled(row)} in ${row.queue} reached its budget: raise it or decide` }
      : null,
};

/** The facts among `events` for `person`: never their own acts; at most 100 events a call. */
export async function notificationFacts(db: Executor, person: Person, events: EventRef[]): Promise<NotificationFact[]> {
  const refs = [...new Map(events.map((e) => [e.id, e])).values()].slice(0, 100);
  if (refs.length === 0) return [];
  const [ids, taskIds] = [refs.map((e) => e.id), refs.map((e) => e.taskId)];
  const rows = await db.execute<Row>(sql`
    SELECT e.id::text AS id, e.task_id::text AS task_id, e.queue, e.type::text AS type, e.actor_id::text AS actor_id,
           coalesce(a.name, 'someone') AS actor_name, e.payload, t.title, t.status::text AS status,
           (SELECT x.payload->>'previousOwnerId' FROM task_events x
             WHERE x.tx_id = e.tx_id AND x.task_id = e.task_id AND x.type = 'lease_expired' AND e.type::text = 'claimed'
             ORDER BY x.id DESC LIMIT 1) AS took_over_from,
           ${heldBy(sql`e.task_id`, partyOf(person.actorId))} AS held,
           (SELECT u.notifications_off FROM users u WHERE u.actor_id = ${person.actorId}::uuid) AS off
    FROM task_events e
    LEFT JOIN actors a ON a.id = e.actor_id
    LEFT JOIN tasks t ON t.id = e.task_id
    -- Each event by its task and id: a probe of task_events_task a partition.
    WHERE (e.task_id, e.id) IN (SELECT * FROM unnest(${`{${taskIds.join(",")}}`}::bigint[], ${`{${ids.join(",")}}`}::bigint[]))
      AND e.type::text = ANY(${`{${NOTIFIED_TYPES.join(",")}}`}::text[])
      AND e.actor_id <> ${person.actorId}::uuid
    ORDER BY e.id`);
  // Whom a queue's questions are asked of, read only when a question is among the events.
  const standing = personStanding(person.role);
  const queues = ANSWERERS.includes(standing) && rows.some((r) => r.type === "question_asked") ? await answerableQueues(db, standing) : [];
  const known = (row: Row): Known => ({ answers: ANSWERERS.includes(standing) && (queues === null || queues.includes(row.queue)) });
  return rows.flatMap((row) => {
    const fact = RULES[row.type]?.(row, person, known(row));
    return fact && !(row.off ?? []).includes(fact.kind) ? [{ ...fact, eventId: row.id, taskId: row.task_id }] : [];
  });
}
