// How a completion's result reads to a person (contract v1.3, review): a reviewer sees what
// was submitted, not a JSON dump. Pure data in, pure data out; React renders it as elements
// (components/task/result-view.tsx), so nothing a result says becomes markup, and only
// http(s) addresses become links.

export interface ResultLink {
  href: string;
  label: string;
}

export interface ReadableResult {
  /** Text to render as the safe Markdown subset (components/task/markdown.ts); null without one. */
  summary: string | null;
  links: ResultLink[];
  /** What is left to show as formatted JSON; undefined when the summary and links said it all. */
  rest?: unknown;
}

export type JsonSegment = { kind: "text"; text: string } | { kind: "link"; text: string; href: string };

/** An http(s) address as a link may carry it, or null (javascript:, data:, mailto:, relative). */
export function httpHref(url: string): string | null {
  const trimmed = url.trim();
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    const parsed = new URL(trimmed);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function linkOf(item: unknown): ResultLink | null {
  if (typeof item === "string") {
    const href = httpHref(item);
    return href ? { href, label: item.trim() } : null;
  }
  if (!isRecord(item)) return null;
  const url = typeof item.url === "string" ? item.url : typeof item.href === "string" ? item.href : null;
  const href = url ? httpHref(url) : null;
  if (!href) return null;
  const label = typeof item.title === "string" ? item.title : typeof item.label === "string" ? item.label : url!;
  return { href, label: label.trim() || href };
}

/**
 * A result as a person reads it: a string is its summary; an object's `summary` (or `text`)
 * string and its `links` (addresses, or `{url|href, title|label}`) are drawn as such, and what
 * else it holds stays as JSON; anything else is JSON. A link that is not http(s) stays in
 * the JSON, as text.
 */
export function readResult(result: unknown): ReadableResult {
  if (typeof result === "string") return { summary: result, links: [] };
  if (!isRecord(result)) return { summary: null, links: [], rest: result ?? null };
  const rest: Record<string, unknown> = { ...result };
  let summary: string | null = null;
  for (const key of ["summary", "text"]) {
    if (summary === null && typeof rest[key] === "string") {
      summary = rest[key] as string;
      delete rest[key];
    }
  }
  let links: ResultLink[] = [];
  if (Array.isArray(rest.links)) {
    const read = rest.links.map(linkOf);
    if (read.every((link) => link !== null)) {
      links = read as ResultLink[];
      delete rest.links;
    }
  }
  return { summary, links, ...(Object.keys(rest).length > 0 ? { rest } : {}) };
}

const URL_IN_TEXT = /https?:\/\/[^\s"\\<>]+/g;

/** Formatted JSON (two-space indent) cut into text and the http(s) addresses in it, as links. */
export function jsonSegments(value: unknown): JsonSegment[] {
  const text = JSON.stringify(value === undefined ? null : value, null, 2) ?? "null";
  const out: JsonSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const href = httpHref(match[0]);
    if (!href) continue;
    if (match.index > last) out.push({ kind: "text", text: text.slice(last, match.index) });
    out.push({ kind: "link", text: match[0], href });
    last = match.index + match[0].length;
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
  return out;
}
