import { sql, type SQL } from "drizzle-orm";
import { taskSearch, taskSearchDocument, taskState } from "@/db/schema";

/**
 * The board's search (`GET /tasks?q=`), on PostgreSQL full-text search.
 *
 * - The document is `taskSearchDocument(words)` from db/schema/tasks.ts, the very expression
 *   the `task_search_words` GIN index is built on (the planner only uses an expression index
 *   for the same expression), over a task's words kept in task_search, off the task row, so
 *   the agent loop's writes never recompute them.
 * - People's text is never handed to to_tsquery as syntax. It is cut at white space into
 *   terms; every term but the last goes through plainto_tsquery (the same parser as the
 *   document, so "amal@example.com" or "INV-42" match as they were stored, and operators
 *   are plain text to it). The last term matches either the same way or as prefixes of its
 *   words (runs of letters and digits, each a quoted lexeme), so the board narrows as
 *   someone types ("inspe" finds "inspection"). So `a & | ! ( :*` is just the word "a",
 *   and no input can be a tsquery syntax error.
 * - Every term must match (AND, like a search box). Relevance does not order the page: the
 *   sort does (keyset pagination needs a stable order; docs/api.md).
 * - Text with no letter or digit at all ("!!!") matches nothing.
 * - The 'simple' configuration: no stemming and no stop words, so ids, codes and names in
 *   a payload are found as typed, in any language.
 */
/** More terms than this add nothing a person would type; a bound on the query's size. */
const MAX_TERMS = 32;

const WORD = /[\p{L}\p{N}]+/gu;

/** The terms of a search that have a word in them, as typed. */
export function searchTerms(text: string): string[] {
  return text
    .split(/\s+/)
    .filter((term) => /[\p{L}\p{N}]/u.test(term))
    .slice(0, MAX_TERMS);
}

/**
 * The prefix tsquery of one term's words: `'w1':* & 'w2':*`. Each word holds only letters
 * and digits, so quoting it is enough.
 */
export function prefixQueryText(term: string): string {
  return (term.toLowerCase().match(WORD) ?? []).map((word) => `'${word}':*`).join(" & ");
}

/** The WHERE condition of a search: the task's indexed document matches every term. */
export function searchCondition(text: string): SQL {
  const terms = searchTerms(text);
  const last = terms.pop();
  if (last === undefined) return sql`false`;
  const tail = sql`(plainto_tsquery('simple'::regconfig, ${last}) || to_tsquery('simple'::regconfig, ${prefixQueryText(last)}))`;
  const query = terms.length ? sql`(plainto_tsquery('simple'::regconfig, ${terms.join(" ")}) && ${tail})` : tail;
  // The matching ids as one array, read first through task_search_words (an InitPlan), then
  // fetched by tasks_pkey: written as a join or IN, the planner guesses a share of the table
  // for a prefix search and hashes a scan of every task against them.
  return sql`${taskState.id} = ANY(ARRAY(SELECT ${taskSearch.taskId} FROM ${taskSearch} WHERE ${taskSearchDocument(taskSearch.words)} @@ ${query}))`;
}
