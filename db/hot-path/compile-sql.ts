import { SQL, StringChunk } from "drizzle-orm";

type Compiled = { sql: string; params: unknown[] };

/**
 * drizzle's sqlToQuery for what the engine's raw statements are made of — text, values,
 * nested sql``, sql.raw and sql.join, arrays as lists — in one walk. drizzle's own builder
 * asks every chunk which of a dozen entities it is and merges an object per chunk; on the
 * agent loop that was a sixth of the client's CPU a task (CHANGELOG.md). Anything
 * else (a column, a table, a Param, inlined params, an object) answers null, and the
 * caller uses drizzle's: the text and values are always exactly what drizzle would build.
 */
export function compileSql(query: SQL): Compiled | null {
  const out: Compiled = { sql: "", params: [] };
  return walk(query, out) ? out : null;
}

function walk(query: SQL, out: Compiled): boolean {
  if ((query as unknown as { shouldInlineParams: boolean }).shouldInlineParams) return false;
  for (const chunk of query.queryChunks) if (!add(chunk, out)) return false;
  return true;
}

/** What drizzle binds as a parameter as it is. */
const VALUE_TYPES = new Set(["string", "number", "boolean", "bigint"]);

function add(chunk: unknown, out: Compiled): boolean {
  if (chunk instanceof StringChunk) {
    out.sql += chunk.value.join("");
  } else if (chunk instanceof SQL) {
    return walk(chunk, out);
  } else if (chunk === undefined) {
    // drizzle writes nothing for it
  } else if (chunk === null || chunk instanceof Date || VALUE_TYPES.has(typeof chunk)) {
    out.params.push(chunk);
    out.sql += `$${out.params.length}`;
  } else if (Array.isArray(chunk)) {
    out.sql += "(";
    for (const [i, item] of chunk.entries()) {
      if (i > 0) out.sql += ", ";
      if (!add(item, out)) return false;
    }
    out.sql += ")";
  } else {
    return false;
  }
  return true;
}
