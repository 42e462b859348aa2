import { hash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { ActorRef } from "../core/types";

// Review before done (docs/engine.md): what a completion that waits for review keeps, and
// whether it waits. The digest binds an approval to what the reviewer read.

/** JSON with every object's keys sorted (arrays keep their order): one text per value. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

/** SHA-256 (lowercase hex) of the canonical JSON of a completion's result (null when it sent none). */
export const submissionDigest = (result: unknown): string => hash("sha256", canonicalJson(result ?? null), "hex");

/** An actor as a submission and an event keep it. */
export const actorOf = (actor: ActorRef): ActorRef => ({ id: actor.id, name: actor.name, kind: actor.kind });

/**
 * Whether this caller's completion waits for a reviewer, in SQL over the queue `q`: the
 * queue's `review` is `everyone`, or `agents` and the caller is an agent.
 */
export const needsReview = (actor: ActorRef) =>
  sql`(q.review = 'everyone' OR (q.review = 'agents' AND ${actor.kind === "agent"}::boolean))`;
