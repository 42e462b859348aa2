import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeHref } from "@/components/task/markdown";

describe("the description's Markdown", () => {
  it("makes http(s) and mailto links, never javascript:, data: or relative ones", () => {
    expect(parseInline("[the runbook](https://example.com/run?a=1)")).toEqual([
      { kind: "link", href: "https://example.com/run?a=1", children: [{ kind: "text", text: "the runbook" }] },
    ]);
    expect(parseInline("[x](javascript:alert(1))")[0]).toMatchObject({ kind: "text" });
    expect(parseInline("[x](data:text/html,hi)")).toEqual([{ kind: "text", text: "[x](data:text/html,hi)" }]);
    expect(safeHref("JaVaScRiPt:alert(1)")).toBeNull();
    expect(safeHref("/tasks/1")).toBeNull();
    expect(safeHref("mailto:ops@example.com")).toBe("mailto:ops@example.com");
  });

  it("autolinks a bare URL, leaving the sentence's full stop outside it", () => {
    expect(parseInline("See https://example.com/a/b. Then")).toEqual([
      { kind: "text", text: "See " },
      { kind: "link", href: "https://example.com/a/b", children: [{ kind: "text", text: "https://example.com/a/b" }] },
      { kind: "text", text: ". Then" },
    ]);
  });

  it("keeps markup as text: nothing is HTML", () => {
    const runs = parseInline('<img src=x onerror="alert(1)"> <script>alert(1)</script>');
    expect(runs).toEqual([{ kind: "text", text: '<img src=x onerror="alert(1)"> <script>alert(1)</script>' }]);
  });

  it("reads emphasis, code and escapes", () => {
    expect(parseInline("Look at **this** and *that*, `a*b*c`, snake_case_name \\*not em\\*")).toEqual([
      { kind: "text", text: "Look at " },
      { kind: "strong", children: [{ kind: "text", text: "this" }] },
      { kind: "text", text: " and " },
      { kind: "em", children: [{ kind: "text", text: "that" }] },
      { kind: "text", text: ", " },
      { kind: "code", text: "a*b*c" },
      { kind: "text", text: ", snake_case_name *not em*" },
    ]);
  });

  it("splits blocks: paragraphs, headings, lists, fenced code", () => {
    const blocks = parseMarkdown("# Steps\n\n1. Read the gauge\n2. Write it down\n\n- one\n- two\n\nline one\nline two\n\n```\nraw *text*\n```");
    expect(blocks.map((b) => b.kind)).toEqual(["heading", "list", "list", "paragraph", "code"]);
    expect(blocks[1]).toMatchObject({ kind: "list", ordered: true, items: [[{ kind: "text", text: "Read the gauge" }], [{ kind: "text", text: "Write it down" }]] });
    expect(blocks[3]).toEqual({ kind: "paragraph", children: [{ kind: "text", text: "line one" }, { kind: "break" }, { kind: "text", text: "line two" }] });
    expect(blocks[4]).toEqual({ kind: "code", text: "raw *text*" });
  });
});
