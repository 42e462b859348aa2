import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "@/db/client";
import { LAPSING_WARNING_SECONDS } from "@/lib/cadence";
import { defineOperation, type OperationContext, mayResolveUnknown, resolveEffect, raiseBudget, renew, forceRelease, listOpenQuestions, partyOf, review, reviewableByParty, requeue } from "@/lib/tasks";
import { EVERYONE, ok, asksItself } from "@/lib/tasks/model";
import { ATTENTION_KINDS, type Attention, type AttentionItem, type AttentionKind } from "./kinds";

// What waits for the caller (docs/contract.md "Attention: what waits for me", docs/attention.md):
// each kind is what an operation would let them do now, read with that operation's own rule —
// its `who` for the standing, and the finer rule it decides inside (the question's asker, the
// reviewer's party, the effect's holder) from the same function or SQL fragment it uses. A
// count that offered what the engine refuses would be a bug: attention.test.ts performs the act
// for every counted item and sees the engine refuse the uncounted ones.

/** Each kind's count stops here (the nav shows "999+"); items list the first ITEMS_PER_KIND. */
export const ATTENTION_CAP = 999;
export const ITEMS_PER_KIND = 50;

type Ctx = Pick<OperationContext, "actor" | "standing" | "clock">;
type Row = { task_id: string; title: string; queue: string; since: Date | string };

/**
 * A lease's last minute — never more than its last two thirds, where a renewal is due (a
 * renewer renews at a third, lib/cadence.ts): so the one-click renewal always renews it.
 */
const lapsingWindow = sql`make_interval(secs => least(${LAPSING_WARNING_SECONDS}, t.lease_seconds * 2.0 / 3))`;

const may = (op: { who: readonly string[] }, ctx: Ctx) => ctx.standing !== undefined && op.who.includes(ctx.standing);

async function rows(tx: Tx, kind: AttentionKind, query: SQL): Promise<{ kind: AttentionKind; count: number; items: AttentionItem[] }> {
  const found = await tx.execute<Row>(sql`${query} LIMIT ${ATTENTION_CAP + 1}`);
  return {
    kind,
    count: found.length,
    items: found.slice(0, ITEMS_PER_KIND).map((r) => ({ kind, taskId: String(r.task_id), title: String(r.title), queue: String(r.queue), since: new Date(r.since) })),
  };
}

/** Open questions and parked budgets: the inbox's list (listOpenQuestions, its queue rule), less the caller's own. */
async function questionsAndBudgets(tx: Tx, ctx: Ctx) {
  if (!may(listOpenQuestions, ctx)) return { questions: [], budgets: [] };
  const listed = await listOpenQuestions.run(tx, {}, ctx);
  if (!listed.ok) return { questions: [], budgets: [] };
  const owners = new Map((await tx.execute<{ id: string; owner_id: string | null }>(sql`
    SELECT id::text AS id, owner_id::text AS owner_id FROM task_state WHERE id = ANY(${`{${listed.value.map((q) => q.taskId).join(",")}}`}::bigint[])`))
    .map((r) => [r.id, r.owner_id]));
  const item = (kind: AttentionKind) => (q: (typeof listed.value)[number]): AttentionItem =>
    ({ kind, taskId: q.taskId, title: q.title, queue: q.queue, since: q.askedAt, questionId: q.id });
  return {
    questions: listed.value.filter((q) => q.kind === "agent" && !asksItself(q, owners.get(q.taskId), ctx.actor.id)).map(item("questions")),
    budgets: may(raiseBudget, ctx) ? listed.value.filter((q) => q.kind === "budget").map(item("budgets")) : [],
  };
}

/** Everything that waits for the caller now, by kind (observers: nothing — they may do none of it). */
export async function readAttention(tx: Tx, ctx: Ctx): Promise<Attention> {
  const now = ctx.clock.now();
  const { actor } = ctx;
  const kinds = await Promise.all([
    may(review, ctx) ? rows(tx, "reviews", sql`
      WITH party AS (SELECT ${partyOf(actor.id)} AS ids)
      SELECT t.id::text AS task_id, t.title, t.queue, coalesce((t.submission->>'at')::timestamptz, t.updated_at) AS since
      FROM tasks t, party WHERE ${reviewableByParty} ORDER BY t.id`) : null,
    // The caller's own live leases within a minute of lapsing: a renewal keeps each.
    may(renew, ctx) ? rows(tx, "lapsing", sql`
      SELECT t.id::text AS task_id, t.title, t.queue, t.lease_until AS since
      FROM task_held h JOIN tasks t ON t.id = h.id
      WHERE h.owner_id = ${actor.id}::uuid AND t.owner_id = ${actor.id}::uuid AND t.status IN ('claimed', 'started')
        AND t.lease_until > ${now} AND t.lease_until <= ${now} + ${lapsingWindow}
      ORDER BY t.lease_until, t.id`) : null,
    // Lapsed leases nobody took over: a supervisor releases (or lets a claim take) them.
    may(forceRelease, ctx) ? rows(tx, "lapsed", sql`
      SELECT t.id::text AS task_id, t.title, t.queue, lease.lease_until AS since
      FROM task_lease lease JOIN tasks t ON t.id = lease.id
      WHERE lease.lease_until <= ${now} ORDER BY lease.lease_until, lease.id`) : null,
    may(requeue, ctx) ? rows(tx, "escalated", sql`
      SELECT t.id::text AS task_id, t.title, t.queue, t.updated_at AS since FROM tasks t WHERE t.status = 'escalated' ORDER BY t.id`) : null,
    may(resolveEffect, ctx) ? rows(tx, "effects", sql`
      SELECT t.id::text AS task_id, t.title, t.queue, t.updated_at AS since FROM tasks t
      WHERE t.unknown_effects > 0 AND ${mayResolveUnknown(actor, ctx.standing, now)} ORDER BY t.id`) : null,
  ]);
  const { questions, budgets } = await questionsAndBudgets(tx, ctx);
  const byKind = new Map<AttentionKind, { count: number; items: AttentionItem[] }>([
    ["questions", { count: Math.min(questions.length, ATTENTION_CAP + 1), items: questions.slice(0, ITEMS_PER_KIND) }],
    ["budgets", { count: Math.min(budgets.length, ATTENTION_CAP + 1), items: budgets.slice(0, ITEMS_PER_KIND) }],
  ]);
  for (const k of kinds) if (k) byKind.set(k.kind, k);
  const counts = Object.fromEntries(ATTENTION_KINDS.map((kind) => [kind, Math.min(byKind.get(kind)?.count ?? 0, ATTENTION_CAP)])) as Attention["counts"];
  const more = ATTENTION_KINDS.filter((kind) => (byKind.get(kind)?.count ?? 0) > ATTENTION_CAP);
  // When time alone changes the answer (expiry is lazy: nothing is written when a lease nears
  // or passes its end): the caller's next lease to enter its last minute or lapse, and — for
  // whoever counts lapsed leases — the next lease of anyone's to lapse.
  const [next] = await tx.execute<{ at: Date | string | null }>(sql`
    SELECT least(
      (SELECT min(CASE WHEN t.lease_until - ${lapsingWindow} > ${now} THEN t.lease_until - ${lapsingWindow} ELSE t.lease_until END)
       FROM task_held h JOIN task_state t ON t.id = h.id
       WHERE h.owner_id = ${actor.id}::uuid AND t.status IN ('claimed', 'started') AND t.lease_until > ${now}),
      ${may(forceRelease, ctx) ? sql`(SELECT min(lease.lease_until) FROM task_lease lease WHERE lease.lease_until > ${now})` : sql`NULL::timestamptz`}
    ) AS at`);
  return {
    counts,
    more,
    items: ATTENTION_KINDS.flatMap((kind) => byKind.get(kind)?.items ?? []),
    nextChangeAt: next?.at ? new Date(next.at) : null,
  };
}

/** GET /api/v1/me/attention and the nav's counts: anyone may ask; what they may do decides the answer. */
export const attention = defineOperation({
  name: "attention",
  who: EVERYONE,
  input: z.strictObject({}),
  run: async (tx, _input, ctx) => ok(await readAttention(tx, ctx)),
});
