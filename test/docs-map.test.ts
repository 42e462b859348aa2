import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import {
  anchors, codeSpans, commentPaths, docPages, exists, exportsName, filesUnder, generated, localLinks, namedExports, prose, repoPath, ROOT,
} from "./docs-map";

// The map cannot drift: what README.md and docs/**/*.md name must exist. The rules, chosen to
// be strict where a reader follows a reference and silent where text only looks like one:
//
// 1. Paths. An inline code span outside fenced blocks whose first segment is a file or folder
//    at the repository root and that holds a `/` or a dot (`lib/tasks/core/engine.ts`,
//    `db/migrations/`, `README.md`) must exist. Spans with placeholders (`<name>`, `*`, `…`,
//    `{id}`) or spaces are not paths; a trailing `:line` is dropped. Paths under a root folder
//    that .gitignore names (`/bench/results/`) are written by runs and not checked.
// 2. Links. A markdown link to a repository file (no scheme) must exist, resolved from the
//    page's folder; when it names an anchor in a .md page, a heading must make that anchor.
// 3. Exports. `name` in `path`, with path a .ts/.tsx file named as in rule 1
//    (a bare `engine.ts` beside its folder is not checked), says the file exports name, when
//    the name has a capital (`defineOperation`, `MOVES`) or is written as a call (`perform()`):
//    lower-case words there are event types, columns and fields. Exported means declared with
//    `export`, listed in `export { … }`, or re-exported by an `export *` of a relative or `@/` module.
// 4. The map. Every folder of lib/tasks/ appears in docs/architecture.md as `lib/tasks/<folder>/`.
// 5. Citations from code. A `docs/<page>.md#anchor` in a source comment names a heading of that page,
//    and a repository path in a source comment (`lib/tasks/effects/ledger.ts`) exists.

const pages = docPages();
const read = (rel: string) => readFileSync(path.join(ROOT, rel), "utf8");

describe.each(pages)("%s", (page) => {
  const text = prose(read(page));

  test("every repository path it names exists", () => {
    const missing = codeSpans(text).flatMap(({ span, line }) => {
      const p = repoPath(span);
      return p && !exists(p) && !generated(p) ? [`${page}:${line}: ${p}`] : [];
    });
    expect(missing).toEqual([]);
  });

  test("every link into the repository resolves, anchors included", () => {
    const broken = localLinks(text).flatMap(({ target, anchor, line }) => {
      const file = target === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
      if (!exists(file)) return [`${page}:${line}: ${target}`];
      if (anchor && file.endsWith(".md") && !anchors(read(file)).has(anchor)) return [`${page}:${line}: ${target}#${anchor}`];
      return [];
    });
    expect(broken).toEqual([]);
  });

  test("every name said to be in a file is exported by it", () => {
    const wrong = namedExports(text).flatMap(({ name, file, line }) =>
      exportsName(file, name) ? [] : [`${page}:${line}: ${name} is not exported by ${file}`],
    );
    expect(wrong).toEqual([]);
  });
});

test("docs/architecture.md names every folder of lib/tasks", () => {
  const map = read("docs/architecture.md");
  const folders = readdirSync(path.join(ROOT, "lib/tasks"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  expect(folders.length).toBeGreaterThan(0);
  expect(folders.filter((folder) => !map.includes(`\`lib/tasks/${folder}/\``))).toEqual([]);
});

const sources = ["lib", "app", "components", "db", "scripts", "test", "bench", "e2e"].flatMap((dir) =>
  filesUnder(dir, (name) => /\.(tsx?|mjs|sql)$/.test(name)),
);

test("every path named in a source comment exists", () => {
  const missing = sources.flatMap((file) =>
    commentPaths(read(file)).flatMap(({ path: p, line }) => (exists(p) || generated(p) ? [] : [`${file}:${line}: ${p}`])),
  );
  expect(missing).toEqual([]);
});

test("every docs/…md#anchor cited in source names a heading of that page", () => {
  const broken = sources.flatMap((file) =>
    [...read(file).matchAll(/docs\/([\w-]+\.md)#([\w-]+)/g)].flatMap(([cited, page, anchor]) =>
      exists(`docs/${page}`) && anchors(read(`docs/${page}`)).has(anchor!) ? [] : [`${file}: ${cited}`],
    ),
  );
  expect(broken).toEqual([]);
});

// The rules themselves, on pages made up here: each must catch what it is for.
describe("the rules", () => {
  test("a path that does not exist is caught, a placeholder is not", () => {
    const spans = codeSpans("see `lib/tasks/core/nowhere.ts`, `app/<name>/page.tsx` and `queued`").map((s) => repoPath(s.span));
    expect(spans).toEqual(["lib/tasks/core/nowhere.ts", null, null]);
    expect(exists("lib/tasks/core/nowhere.ts")).toBe(false);
  });

  test("an export the file does not have is caught", () => {
    const named = namedExports("`perform()` in `lib/tasks/core/engine.ts`, `performAll` in `lib/tasks/core/engine.ts`, `claimed` in `lib/tasks/claiming/expire.ts`, `notBefore` (`lib/tasks/claiming/ready.ts`)");
    expect(named.map(({ name, file }) => exportsName(file, name))).toEqual([true, false]);
  });

  test("a comment naming a file that never existed is caught; code and others' paths are not", () => {
    const named = commentPaths([
      "// the moves: lib/tasks/effects/effect-machine.ts.",
      "const x = \"lib/tasks/effects/ledger.ts\"; // see docs/design.md",
      "/** next-auth's cookies (core/lib/cookie.ts) */",
      "await f.task(\"a migration\", { reserves: [ex(\"db/migrations/0027.sql\")] });",
    ].join("\n"));
    expect(named).toEqual([{ path: "lib/tasks/effects/effect-machine.ts", line: 1 }, { path: "docs/design.md", line: 2 }]);
    expect(exists("lib/tasks/effects/effect-machine.ts")).toBe(false);
  });

  test("an anchor no heading makes is caught", () => {
    expect(anchors("# A map\n## The rooms\n```\n## not a heading\n```\n").has("the-rooms")).toBe(true);
    expect(anchors("## The rooms\n").has("the-room")).toBe(false);
  });
});
