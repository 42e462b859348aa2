import { sql, type SQL } from "drizzle-orm";
import postgres from "postgres";
import type { Db, Executor } from "@/db/client";

/**
 * A connection of its own that reports the plan of every statement it runs (auto_explain at
 * notice level), for the tests that check the plans of the code's own statements. One
 * connection, since LOAD and SET hold for a session. `plans` gathers the reports; a test
 * empties it (`plans.length = 0`) before the read it checks. `nested` adds the statements run
 * inside functions and triggers.
 */
export async function planReporter(url: string, { nested = false } = {}): Promise<{ client: postgres.Sql; plans: string[] }> {
  const plans: string[] = [];
  const client = postgres(url, { max: 1, onnotice: (notice) => void plans.push(String(notice.message)), connection: { TimeZone: "UTC" } });
  await client.unsafe(`LOAD 'auto_explain'`);
  await client.unsafe(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_level = notice${nested ? "; SET auto_explain.log_nested_statements = on" : ""}`);
  return { client, plans };
}

/** `db`, but every execute() is recorded and counted while in flight. */
export function recording(db: Db) {
  const queries: SQL[] = [];
  const counts = { inFlight: 0, peak: 0, done: 0 };
  const wrapped = new Proxy(db, {
    get(target, key, receiver) {
      if (key !== "execute") return Reflect.get(target, key, receiver);
      return async (query: SQL) => {
        queries.push(query);
        counts.peak = Math.max(counts.peak, ++counts.inFlight);
        try {
          return await target.execute(query);
        } finally {
          counts.inFlight--;
          counts.done++;
        }
      };
    },
  });
  return { db: wrapped, queries, counts };
}

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

/**
 * What `query` read of the relations whose names start with `relation` (a partitioned table's
 * partitions too), by EXPLAIN ANALYZE: `rows` taken out of them, kept or filtered away; or
 * `pages` touched, indexes included (BUFFERS), where a walk of a whole index shows and its
 * rows do not.
 */
export async function readOf(db: Executor, query: SQL, relation: string, what: "rows" | "pages"): Promise<number> {
  const options = what === "pages" ? sql`(ANALYZE, BUFFERS, FORMAT JSON)` : sql`(ANALYZE, FORMAT JSON)`;
  const [row] = await db.execute<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(sql`EXPLAIN ${options} ${query}`);
  const own = (node: PlanNode): number =>
    what === "pages"
      ? (node["Shared Hit Blocks"] ?? 0) + (node["Shared Read Blocks"] ?? 0)
      : ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) * (node["Actual Loops"] ?? 1);
  const walk = (node: PlanNode): number =>
    (node["Relation Name"]?.startsWith(relation) ? own(node) : 0) + (node.Plans ?? []).reduce((sum, child) => sum + walk(child), 0);
  return walk(row!["QUERY PLAN"][0].Plan);
}
