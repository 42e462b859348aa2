import { describe, expect, test } from "vitest";
import { parseMarkdown } from "@/components/task/markdown";
import { httpHref, jsonSegments, readResult } from "./read-result";

describe("a result as a person reads it", () => {
  test("a string is its summary; an object's summary and links are drawn, the rest stays JSON", () => {
    expect(readResult("Fixed: see https://example.com/pr/1")).toEqual({ summary: "Fixed: see https://example.com/pr/1", links: [] });
    expect(readResult({ summary: "Done", links: ["https://example.com/a", { url: "https://example.com/b", title: "PR" }], tests: 12 })).toEqual({
      summary: "Done",
      links: [{ href: "https://example.com/a", label: "https://example.com/a" }, { href: "https://example.com/b", label: "PR" }],
      rest: { tests: 12 },
    });
    expect(readResult({ summary: "only" })).toEqual({ summary: "only", links: [] });
    expect(readResult([1, 2])).toEqual({ summary: null, links: [], rest: [1, 2] });
    expect(readResult(null)).toEqual({ summary: null, links: [], rest: null });
  });

  test("only http(s) addresses become links: a list with any other stays JSON, as text", () => {
    for (const bad of ["javascript:alert(1)", "data:text/html,<b>x</b>", "mailto:a@b.c", "/relative", "JaVaScRiPt:alert(1)", "http//broken"]) {
      expect(httpHref(bad), bad).toBeNull();
    }
    const read = readResult({ summary: "s", links: ["https://ok.example", "javascript:alert(1)"] });
    expect(read.links).toEqual([]);
    expect(read.rest).toEqual({ links: ["https://ok.example", "javascript:alert(1)"] });
  });

  test("formatted JSON with its http(s) addresses as links, nothing else", () => {
    const segments = jsonSegments({ pr: "https://example.com/pr/7", evil: "javascript:alert(1)", n: 1 });
    expect(segments.filter((s) => s.kind === "link")).toEqual([{ kind: "link", text: "https://example.com/pr/7", href: "https://example.com/pr/7" }]);
    expect(segments.map((s) => s.text).join("")).toBe(JSON.stringify({ pr: "https://example.com/pr/7", evil: "javascript:alert(1)", n: 1 }, null, 2));
    expect(jsonSegments(undefined)).toEqual([{ kind: "text", text: "null" }]);
  });

  test("a summary's Markdown never carries markup or a script link", () => {
    const blocks = parseMarkdown("<img src=x onerror=alert(1)> [x](javascript:alert(1)) **ok** https://example.com");
    const flat = JSON.stringify(blocks);
    expect(flat).not.toContain('"href":"javascript');
    expect(flat).toContain('"kind":"strong"');
    expect(flat).toContain('"href":"https://example.com/"');
    expect(flat).toContain("<img src=x onerror=alert(1)>"); // as text, which React escapes
  });
});
