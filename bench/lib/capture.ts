import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "@/db/schema";
import { perform } from "@/lib/tasks/engine";
import { claimNext } from "@/lib/tasks/claim-next";
import { complete } from "@/lib/tasks/complete";
import { createActor } from "@/lib/tasks/actors";

/** A task id no other parameter of the cycle can equal, so it can be found and replaced by :id. */
const MARKER_ID = "987654321";

export interface CapturedCycle {
  /** Statements of the claim transaction (claim-next with start); parameters as :pN, the task id as :id. */
  claim: string[];
  /** Statements of the complete transaction. */
  complete: string[];
  /** Index in `claim` of the UPDATE whose RETURNING gives the task id. */
  claimUpdate: number;
  /** pgbench variables (-D name=value) for the parameters: bound, as the driver binds them. */
  variables: Record<string, string>;
  /** The agent the statements name: each database pgbench runs on needs it. */
  actor: { id: string; name: string };
}

/** One line, no `--` comments: pgbench reads a `\gset` query up to the end of its line. */
const oneLine = (text: string) =>
  text.split("\n").map((l) => l.replace(/--.*$/, "")).join(" ").replace(/\s+/g, " ").trim();

/**
 * Runs one real agent cycle through the engine (claim-next with start → complete) with the
 * driver's debug hook on, and returns the statements it sent with their parameters inlined:
 * the very SQL pgbench then replays.
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
    await client.unsafe(`INSERT INTO tasks (id, queue, title) OVERRIDING SYSTEM VALUE VALUES (${MARKER_ID}, 'default', 'capture')`);
    const actor = await createActor(db, "agent", "bench-capture");
    seen.length = 0;
    const claimed = await perform(claimNext, { start: true }, { db, actor });
    if (!claimed.ok || !claimed.value || claimed.value.id !== MARKER_ID) throw new Error(`capture: claim failed ${JSON.stringify(claimed)}`);
    const split = seen.length;
    const done = await perform(complete, { taskId: claimed.value.id, version: claimed.value.version }, { db, actor });
    if (!done.ok) throw new Error(`capture: complete failed ${JSON.stringify(done)}`);
    // Parameters stay parameters (pgbench -M prepared binds :names), so the statements are
    // parsed and planned as the driver's are; inlining them would also expose ':' in values.
    const variables: Record<string, string> = {};
    const values = new Map<string, string>();
    const param = (v: unknown): string => {
      if (v === null || v === undefined) return "NULL";
      const s = String(v);
      if (s === MARKER_ID) return ":id";
      if (!values.has(s)) values.set(s, `p${values.size + 1}`);
      variables[values.get(s)!] = s;
      return `:${values.get(s)}`;
    };
    const render = (q: { text: string; params: unknown[] }) =>
      oneLine(q.text.replace(/\$(\d+)/g, (_, n: string) => param(q.params[Number(n) - 1])));
    const isTxControl = (q: { text: string }) => /^\s*(begin|commit|rollback)\b/i.test(q.text);
    const claim = seen.slice(0, split).filter((q) => !isTxControl(q)).map(render);
    const completeSql = seen.slice(split).filter((q) => !isTxControl(q)).map(render);
    const claimUpdate = claim.findIndex((s) => s.includes("UPDATE tasks t SET") && s.includes("previous_status"));
    if (claimUpdate < 0) throw new Error("capture: no claim UPDATE seen");
    return { claim, complete: completeSql, claimUpdate, variables, actor: { id: actor.id, name: actor.name } };
  } finally {
    await client.end();
  }
}
