import { minPriorityOf, PRIORITY_FILTERS, SORTS, type AgeFilter, type BoardFilters, type PriorityFilter } from "@/components/task/filters";
import { STATUSES, type TaskStatus } from "@/components/task/wire";
import { LIMITS } from "@/lib/limits";
import { nearest } from "@/lib/text/nearest";

/**
 * The board's query box (issue 27): `status:queued queue:triage priority:>5 fix boiler`.
 * A word `key:value` with a known key is a filter; every other word is the search (`q`).
 * The box and the filter chips write the same `BoardFilters`, which live in the URL.
 */

export const QUERY_KEYS = ["status", "queue", "owner", "priority", "age", "sort", "check"] as const;
export type QueryKey = (typeof QUERY_KEYS)[number];

/** One change a token asks for; `undefined` values clear the filter. */
export type FilterChange = Partial<BoardFilters>;

export interface ParsedToken {
  key: QueryKey;
  text: string;
  change?: FilterChange;
  /** Why the token says nothing the board can do, in the app's words. */
  error?: string;
}

const KEY_OF = new Set<string>(QUERY_KEYS);

/** A word that names a filter key (`status:`, `queue:que`): a filter being written, never searched for. */
export function tokenKey(word: string): QueryKey | undefined {
  const colon = word.indexOf(":");
  if (colon <= 0) return undefined;
  const key = word.slice(0, colon).toLowerCase();
  return KEY_OF.has(key) ? (key as QueryKey) : undefined;
}

const AGE_WORDS: Record<string, AgeFilter> = { "1h": "1h", "1d": "1d", "1w": "1w", hour: "1h", day: "1d", week: "1w" };

/** The lowest priority a `priority:` value admits: `>5` is 6, `>=5` and `5+` are 5. */
function minPriority(value: string): number | undefined {
  const match = /^(>=|>|≥)?(-?\d{1,4})(\+)?$/.exec(value);
  if (!match) return undefined;
  const n = Number(match[2]) + (match[1] === ">" ? 1 : 0);
  if (match[1] && match[3]) return undefined;
  return n >= LIMITS.priority.min && n <= LIMITS.priority.max ? n : undefined;
}

/** The stored form of a minimum priority: the two named ones keep their names. */
export function priorityValue(min: number): PriorityFilter {
  if (min === PRIORITY_FILTERS.raised) return "raised";
  if (min === PRIORITY_FILTERS.high) return "high";
  return String(min) as `${number}`;
}

export function parseToken(word: string, queues: readonly string[]): ParsedToken | undefined {
  const key = tokenKey(word);
  if (!key) return undefined;
  const raw = word.slice(key.length + 1);
  const value = raw.toLowerCase();
  const token = (change: FilterChange): ParsedToken => ({ key, text: word, change });
  const refuse = (error: string): ParsedToken => ({ key, text: word, error });
  if (!value) return refuse(`“${word}” needs a value after the colon.`);
  switch (key) {
    case "status":
      if (value === "any" || value === "all") return token({ status: undefined });
      if (STATUSES.includes(value as TaskStatus)) return token({ status: value as TaskStatus });
      return refuse(`There is no status “${raw}”: write one of ${STATUSES.join(", ")}.`);
    case "queue": {
      if (value === "any" || value === "all") return token({ queue: undefined });
      if (queues.includes(value)) return token({ queue: value });
      const near = nearest(value, queues);
      return refuse(`No open queue is called “${raw}”.${near ? ` Did you mean “${near}”?` : ""}`);
    }
    case "owner":
      if (value === "me" || value === "mine") return token({ mine: true, unowned: false });
      if (value === "none" || value === "nobody") return token({ mine: false, unowned: true });
      if (value === "any" || value === "anyone") return token({ mine: false, unowned: false });
      return refuse(`Owner is “me”, “none” or “any”, not “${raw}”.`);
    case "priority": {
      if (value === "any") return token({ priority: undefined });
      if (value === "raised" || value === "high") return token({ priority: value });
      const min = minPriority(value);
      if (min === undefined) return refuse(`Write a priority as “>5”, “>=5” or “5+” (from ${LIMITS.priority.min} to ${LIMITS.priority.max}), not “${raw}”.`);
      return token({ priority: priorityValue(min) });
    }
    case "age": {
      if (value === "any") return token({ age: undefined });
      const age = AGE_WORDS[value.replace(/^>=?/, "")];
      return age ? token({ age }) : refuse(`Age is “>1h”, “>1d” or “>1w” (created at least that long ago), not “${raw}”.`);
    }
    case "sort":
      if (value === "default" || value === "column") return token({ sort: undefined });
      if (value === "newest") return token({ sort: "created" });
      if (value === "changed") return token({ sort: "updated" });
      if ((SORTS as string[]).includes(value)) return token({ sort: value as BoardFilters["sort"] });
      return refuse(`Sort by “priority”, “created” or “updated”, not “${raw}”.`);
    case "check":
      if (["yes", "1", "true", "needed"].includes(value)) return token({ needsCheck: true });
      if (["no", "0", "false", "any"].includes(value)) return token({ needsCheck: false });
      return refuse(`Write “check:yes” for tasks that need a check.`);
  }
}

export interface ParsedQuery {
  change: FilterChange;
  /** The free words: the search. */
  q: string;
  errors: string[];
  /** The words that stay in the box: free words, refused tokens and (unless final) the one being typed. */
  rest: string;
}

/**
 * Reads the box. A filter word is applied once it is finished — followed by a space, or
 * `final` (Enter, leaving the box); the word being typed stays in the box and is not
 * searched for. Applied words leave the box (they become pills); refused ones stay, with
 * a sentence.
 */
export function parseQuery(text: string, queues: readonly string[], final: boolean): ParsedQuery {
  const words = text.split(/\s+/).filter(Boolean);
  const open = !final && !/\s$/.test(text) ? words.length - 1 : -1;
  const change: FilterChange = {};
  const free: string[] = [];
  const rest: string[] = [];
  const errors: string[] = [];
  words.forEach((word, i) => {
    const token = i === open ? undefined : parseToken(word, queues);
    if (i === open && tokenKey(word)) {
      rest.push(word);
      return;
    }
    if (!token) {
      free.push(word);
      rest.push(word);
      return;
    }
    if (token.error) {
      errors.push(token.error);
      rest.push(word);
      return;
    }
    Object.assign(change, token.change);
  });
  const trailing = !final && /\s$/.test(text) && rest.length > 0 ? " " : "";
  return { change, q: free.join(" ").slice(0, LIMITS.search), errors, rest: rest.join(" ") + trailing };
}

/** The active filters, each as the word that would set it (what the pills say and remove). */
export function activeTokens(filters: BoardFilters): { key: QueryKey; text: string; clear: FilterChange }[] {
  const out: { key: QueryKey; text: string; clear: FilterChange }[] = [];
  if (filters.status) out.push({ key: "status", text: `status:${filters.status}`, clear: { status: undefined } });
  if (filters.queue) out.push({ key: "queue", text: `queue:${filters.queue}`, clear: { queue: undefined } });
  if (filters.mine) out.push({ key: "owner", text: "owner:me", clear: { mine: false } });
  else if (filters.unowned) out.push({ key: "owner", text: "owner:none", clear: { unowned: false } });
  if (filters.priority) out.push({ key: "priority", text: `priority:>=${minPriorityOf(filters.priority)}`, clear: { priority: undefined } });
  if (filters.age) out.push({ key: "age", text: `age:>${filters.age}`, clear: { age: undefined } });
  if (filters.sort) out.push({ key: "sort", text: `sort:${filters.sort}`, clear: { sort: undefined } });
  if (filters.needsCheck) out.push({ key: "check", text: "check:yes", clear: { needsCheck: false } });
  return out;
}

// One "did you mean" rule for the board and the engine (lib/text/nearest.ts).
export { distance, nearest } from "@/lib/text/nearest";
