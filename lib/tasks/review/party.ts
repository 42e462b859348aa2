import { sql, type SQL } from "drizzle-orm";

/**
 * The actors that are one party with `actorId` for the maker–checker rule: the person behind
 * it (itself, or the person an OAuth connection's agent acts for — docs/contract.md#mcp-as-a-connector: "the token acts as
 * an agent owned by that person") and the agents of every connection of that person, revoked
 * ones too, since their work was the person's. Without it a person could approve their own
 * work through their MCP client's token, or the reverse. An SQL array of actor ids (uuid[]),
 * read in the statement that decides.
 */
export const partyOf = (actorId: string): SQL => sql`ARRAY(
  WITH person AS (
    SELECT coalesce(
      (SELECT c.person_id FROM oauth_connections c JOIN agent_tokens k ON k.id = c.token_id WHERE k.actor_id = ${actorId}::uuid LIMIT 1),
      ${actorId}::uuid) AS id)
  SELECT person.id FROM person
  UNION
  SELECT k.actor_id FROM person JOIN oauth_connections c ON c.person_id = person.id JOIN agent_tokens k ON k.id = c.token_id)`;

/**
 * The reviewer rule's two facts, written once for every statement that asks them (the review
 * itself, "reviews waiting for me", the notifications' "you worked on it"): `ids` (an SQL
 * uuid[], partyOf's) submitted the task `task` (an alias of a tasks or task_state row) …
 */
export const submittedBy = (task: string, ids: SQL): SQL =>
  sql`coalesce(${sql.raw(task)}.submission->'by'->>'id' = ANY (${ids}::text[]), false)`;

/** … or held an attempt of the task whose id is `taskId` (a `claimed` event in its history). */
export const heldBy = (taskId: SQL, ids: SQL): SQL =>
  sql`EXISTS (SELECT 1 FROM task_events h WHERE h.task_id = ${taskId} AND h.type = 'claimed' AND h.actor_id = ANY (${ids}))`;
