import { bigint, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { actors } from "./tasks";

/**
 * Who did what to whom among the board's people and tokens: invitations, role changes,
 * disabling, unlocks, token creation and revocation — each written by its engine operation in
 * the same transaction as the change (lib/auth/audit.ts). Insert-only like task_events: a
 * trigger (see the hand-written part of migration 0015) refuses UPDATE, DELETE and TRUNCATE.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    /** Who did it: a person, or the CLI's operator actor. */
    actorId: uuid("actor_id")
      .notNull()
      .references(() => actors.id),
    /** What: person_invited, role_changed, person_disabled, person_enabled, sign_in_unlocked, token_created, token_revoked. */
    action: text("action").notNull(),
    /** To whom: "person" (subject_id is the person's actor id) or "token" (the token's id). */
    subjectKind: text("subject_kind").notNull(),
    subjectId: uuid("subject_id").notNull(),
    /** The subject's name then (a person's name and email, a token's name): it may change or be reused later. */
    subjectName: text("subject_name").notNull(),
    /** What changed, e.g. {from, to} of a role; never a secret. */
    detail: jsonb("detail").notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  // The people and fleet pages: the newest records about people, or about tokens.
  (t) => [index("audit_events_subject_kind").on(t.subjectKind, t.id)],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
