import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// What the docs test (test/docs-map.test.ts) reads out of a markdown page. Pure file reading,
// no database: the rules are written at the top of the test.

export const ROOT = path.resolve(import.meta.dirname, "..");

const SKIP_DIRS = new Set(["node_modules", ".next", ".git", ".data", "playwright-report", "test-results"]);

/** Every file under `dir` (relative to the root) whose name passes `keep`, skipping build output. */
export function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      if (SKIP_DIRS.has(entry.name)) continue;
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (keep(entry.name)) out.push(child);
    }
  };
  walk(dir);
  return out;
}

/** README.md and every page under docs/. */
export const docPages = (): string[] => ["README.md", ...filesUnder("docs", (name) => name.endsWith(".md"))];

/** The text outside fenced code blocks (a diagram's or a sample's words are not references); lines keep their numbers. */
export function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ""));
}

/** The inline code spans and the line each starts on (a span may wrap a line, never a paragraph). */
export function codeSpans(text: string): { span: string; line: number; index: number }[] {
  const out: { span: string; line: number; index: number }[] = [];
  for (const m of text.matchAll(/(?<!`)`((?:[^`\n]|\n(?!\s*\n))+)`(?!`)/g)) {
    out.push({ span: m[1]!, line: text.slice(0, m.index).split("\n").length, index: m.index! });
  }
  return out;
}

const TOP_LEVEL = new Set(readdirSync(ROOT).filter((name) => !SKIP_DIRS.has(name)));

/**
 * The repository path a code span names, or null when it names none: its first segment is a
 * file or folder at the root and it holds a `/` or a dot (so `lib/tasks/core/` and
 * `README.md` count, `queued` and `/api/v1/tasks` do not). Placeholders (`<name>`, `*`, `…`,
 * `{id}`) and command lines (a space) are not paths. A trailing `:line` is dropped.
 */
export function repoPath(span: string): string | null {
  if (/[\s<>*…{}$]/.test(span)) return null;
  const p = span.replace(/:\d+(-\d+)?$/, "").replace(/^\.\//, "");
  const first = p.split("/")[0]!;
  if (!TOP_LEVEL.has(first) || !(p.includes("/") || p.includes("."))) return null;
  return p;
}

export const exists = (rel: string) => existsSync(path.join(ROOT, rel));

/** Root folders .gitignore names (`/bench/results/`): what a run writes there is named, not committed. */
const GENERATED = readFileSync(path.join(ROOT, ".gitignore"), "utf8")
  .split("\n")
  .filter((line) => /^\/[\w./-]+\/$/.test(line.trim()))
  .map((line) => line.trim().slice(1));

/** A path in a folder that only runs write (bench/results/, bench/.baselines/): not in a checkout. */
export const generated = (rel: string) => GENERATED.some((dir) => `${rel}/`.startsWith(dir));

/** Markdown links `[text](target)` whose target is in the repository (not a URL, not mail). */
export function localLinks(text: string): { target: string; anchor: string | null; line: number }[] {
  const out: { target: string; anchor: string | null; line: number }[] = [];
  // A link written as an example inside a code span is no link.
  const linkText = text.replace(/(?<!`)`((?:[^`\n]|\n(?!\s*\n))+)`(?!`)/g, (span) => span.replace(/[^\n]/g, " "));
  for (const m of linkText.matchAll(/\]\(([^)\s]+)\)/g)) {
    const raw = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) continue;
    const [target, anchor] = raw.split("#") as [string, string | undefined];
    out.push({ target, anchor: anchor ?? null, line: linkText.slice(0, m.index).split("\n").length });
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export const slug = (heading: string) =>
  heading.trim().toLowerCase().replace(/`/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");

/** The anchors a page's headings make (a repeated heading gets -1, -2, … as on GitHub). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  // An explicit anchor, kept where a link outside (the README's quick start) names an older slug.
  for (const m of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/**
 * `name` in `path`: a name said to live in a TypeScript file named by its repository path.
 * (`name` (`path`) is not read as such: the parenthesis is as often a pointer for the whole
 * sentence, after a field or a column that happens to be camelCase.)
 */
export function namedExports(text: string): { name: string; file: string; line: number }[] {
  const out: { name: string; file: string; line: number }[] = [];
  const pattern = /`([A-Za-z_$][\w$]*)(\(\))?`\s+in\s+`([^`\s]+\.tsx?)`/g;
  for (const m of text.matchAll(pattern)) {
    // An event type, a column or a field (`claimed`, `lease_until`, `effect`) is no export:
    // only a name with a capital (`defineOperation`, `MOVES`) or written as a call (`perform()`).
    if (!/[A-Z]/.test(m[1]!) && !m[2]) continue;
    if (repoPath(m[3]!) === null) continue; // a bare `engine.ts` is said in passing, beside its folder
    out.push({ name: m[1]!, file: m[3]!, line: text.slice(0, m.index).split("\n").length });
  }
  return out;
}

const EXPORT_DECL = (name: string) =>
  new RegExp(`export\\s+(?:declare\\s+)?(?:default\\s+)?(?:async\\s+)?(?:const|let|var|function\\*?|class|interface|type|enum|abstract\\s+class)\\s+${name}\\b`);

/** Whether `file` exports `name`: declared, listed in `export { … }`, or through `export *` of a relative or `@/` module. */
export function exportsName(file: string, name: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || !exists(file) || !statSync(path.join(ROOT, file)).isFile()) return false;
  seen.add(file);
  const source = readFileSync(path.join(ROOT, file), "utf8");
  if (EXPORT_DECL(name).test(source)) return true;
  for (const m of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    const names = m[1]!.split(",").map((part) => part.trim().split(/\s+as\s+/).pop()!.replace(/^type\s+/, ""));
    if (names.includes(name)) return true;
  }
  for (const m of source.matchAll(/export\s+\*\s+from\s+["']([^"']+)["']/g)) {
    const spec = m[1]!;
    const base = spec.startsWith("@/") ? spec.slice(2) : path.posix.join(path.posix.dirname(file), spec);
    const candidates = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`];
    if (candidates.some((candidate) => exportsName(candidate, name, seen))) return true;
  }
  return false;
}

/**
 * Repository paths a source file names in its comments (a line that starts a comment, or what
 * follows ` // ` on a line of code): `lib/…`, `db/…`, `docs/….md` and the like, ending in a
 * file extension. A path inside a longer one (`next-auth/core/lib/cookie.ts`) is not ours.
 */
export function commentPaths(source: string): { path: string; line: number }[] {
  const out: { path: string; line: number }[] = [];
  const pathPattern = /(?<![\w./@-])((?:lib|db|app|components|bench|scripts|test|e2e|docs)\/[\w.[\]/-]*\.(?:tsx?|mjs|md|sql|json))/g;
  source.split("\n").forEach((text, i) => {
    const trimmed = text.trim();
    const comment = /^(\/\/|\*|\/\*|--)/.test(trimmed) ? trimmed : text.includes(" // ") ? text.split(" // ", 2)[1]! : null;
    if (comment === null) return;
    for (const m of comment.matchAll(pathPattern)) out.push({ path: m[1]!.replace(/\.$/, ""), line: i + 1 });
  });
  return out;
}
