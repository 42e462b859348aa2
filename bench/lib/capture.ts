import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "@/db/schema";
import { perform } from "@/lib/tasks/core/engine";
import { claimNext } from "@/lib/tasks/claiming/claim-next";
import { complete, completeAndClaimNext } from "@/lib/tasks/holding/complete";
import { createActor } from "@/lib/tasks/core/actors";

/** Task ids no other parameter of the cycle can equal, so they can be found and replaced by :id / :next_id. */
const MARKER_ID = "987654321";
const LOOP_DONE_ID = "987654322";
const LOOP_NEXT_ID = "987654323";

export interface CapturedCycle {
  /** Statements of the claim transaction (claim-next with start); parameters as :pN, the task id as :id. */
  claim: string[];
  /** Statements of the complete transaction. */
  complete: string[];
  /** Index in `claim` of the UPDATE whose RETURNING gives the task id. */
  claimUpdate: number;
  /**
   * The agent loop's one transaction a task: complete :id and claim (and start) the next,
   * whose id the claim's RETURNING gives as :next_id (the events name both).
   */
  loop: string[];
  /** Index in `loop` of the claim's UPDATE. */
  loopClaimUpdate: number;
  /** pgbench variables (-D name=value) for the parameters: bound, as the driver binds them. */
  variables: Record<string, string>;
  /** The agent the statements name: each database pgbench runs on needs it. */
  actor: { id: string; name: string };
}

/** One line, no `--` comments: pgbench reads a `\gset` query up to the end of its line. */
const oneLine = (text: string) =>
  text.split("\n").map((l) => l.replace(/--.*$/, "")).join(" ").replace(/\s+/g, " ").trim();

/**
 * pgbench reads `:name` as a variable even inside a string literal (to_char's 'HH24:MI'). The
 * engine's SQL is written for PostgreSQL, not for pgbench: the replay adapts, writing such a
 * literal as the same constant in an escape string, its colons as \x3a.
 */
export const pgbenchSafe = (text: string) =>
  text.replace(/(?<![\w'])'((?:[^']|'')*)'/g, (literal, body: string) =>
    /:[A-Za-z_]/.test(body) ? `E'${body.replaceAll("\\", "\\\\").replaceAll(":", "\\x3a")}'` : literal);

/**
 * Runs real agent cycles through the engine with the driver's debug hook on — the v1 cycle
 * (claim-next with start → complete) and the loop's transaction (complete with next) — and
 * returns the statements they sent with their parameters as pgbench variables: the very SQL
 * pgbench then replays.
 */
export async function captureCycle(url: string): Promise<CapturedCycle> {
  const seen: { text: string; params: unknown[] }[] = [];
  const client = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { TimeZone: "UTC", lock_timeout: 5000 },
    debug: (_conn, text, params) => seen.push({ text, params: params as unknown[] }),
  });
  const db = drizzle(client, { schema });
  try {
    // Claimed in this order (priority first): the v1 cycle's task, then the loop's two.
    await client.unsafe(`INSERT INTO tasks (id, queue, title, priority) OVERRIDING SYSTEM VALUE
      VALUES (${MARKER_ID}, 'default', 'capture', 30), (${LOOP_DONE_ID}, 'default', 'capture', 20), (${LOOP_NEXT_ID}, 'default', 'capture', 10)`);
    const actor = await createActor(db, "agent", "bench-capture");
    seen.length = 0;
    const claimed = await perform(claimNext, { start: true }, { db, actor });
    if (!claimed.ok || !claimed.value || claimed.value.id !== MARKER_ID) throw new Error(`capture: claim failed ${JSON.stringify(claimed)}`);
    const split = seen.length;
    const done = await perform(complete, { taskId: claimed.value.id, version: claimed.value.version }, { db, actor });
    if (!done.ok) throw new Error(`capture: complete failed ${JSON.stringify(done)}`);
    const loopFrom = seen.length;
    const held = await perform(claimNext, { start: true }, { db, actor });
    if (!held.ok || held.value?.id !== LOOP_DONE_ID) throw new Error(`capture: loop claim failed ${JSON.stringify(held)}`);
    const loopStart = seen.length;
    const looped = await perform(completeAndClaimNext, { taskId: held.value.id, version: held.value.version, next: { start: true } }, { db, actor });
    if (!looped.ok || looped.value.next?.id !== LOOP_NEXT_ID) throw new Error(`capture: complete with next failed ${JSON.stringify(looped)}`);
    // Parameters stay parameters (pgbench -M prepared binds :names), so the statements are
    // parsed and planned as the driver's are; inlining them would also expose ':' in values.
    const variables: Record<string, string> = {};
    const values = new Map<string, string>();
    const param = (v: unknown): string => {
      if (v === null || v === undefined) return "NULL";
      const s = String(v);
      if (s === MARKER_ID || s === LOOP_DONE_ID) return ":id";
      if (s === LOOP_NEXT_ID) return ":next_id";
      if (!values.has(s)) values.set(s, `p${values.size + 1}`);
      variables[values.get(s)!] = s;
      return `:${values.get(s)}`;
    };
    const render = (q: { text: string; params: unknown[] }) =>
      pgbenchSafe(oneLine(q.text.replace(/\$(\d+)/g, (_, n: string) => param(q.params[Number(n) - 1]))));
    const isTxControl = (q: { text: string }) => /^\s*(begin|commit|rollback)\b/i.test(q.text);
    const claim = seen.slice(0, split).filter((q) => !isTxControl(q)).map(render);
    const completeSql = seen.slice(split, loopFrom).filter((q) => !isTxControl(q)).map(render);
    const loop = seen.slice(loopStart).filter((q) => !isTxControl(q)).map(render);
    const isClaimUpdate = (s: string) => s.includes("UPDATE task_state t SET") && s.includes("previous_status");
    const claimUpdate = claim.findIndex(isClaimUpdate);
    const loopClaimUpdate = loop.findIndex(isClaimUpdate);
    if (claimUpdate < 0 || loopClaimUpdate < 0) throw new Error("capture: no claim UPDATE seen");
    return { claim, complete: completeSql, claimUpdate, loop, loopClaimUpdate, variables, actor: { id: actor.id, name: actor.name } };
  } finally {
    await client.end();
  }
}
