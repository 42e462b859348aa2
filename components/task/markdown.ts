/**
 * A small, safe Markdown for task descriptions (issue 27 item 9). It never produces HTML:
 * the text is parsed into plain data (blocks of inline runs) that React renders as
 * elements, so nothing a description says can become markup or script, and only http(s)
 * and mailto links are links (anything else stays text). The subset: paragraphs, line
 * breaks, `-`/`*` and `1.` lists, `#` headings (shown as bold lines: a description's
 * headings are not the page's), `**bold**`, `*em*`/`_em_`, `` `code` ``, fenced code,
 * `[text](url)` and bare URLs.
 */

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "strong" | "em"; children: Inline[] }
  | { kind: "code"; text: string }
  | { kind: "link"; href: string; children: Inline[] }
  | { kind: "break" };

export type Block =
  | { kind: "paragraph" | "heading"; children: Inline[] }
  | { kind: "list"; ordered: boolean; items: Inline[][] }
  | { kind: "code"; text: string };

/** The links a description may carry: the web and mail, never javascript:, data: or a relative path. */
export function safeHref(url: string): string | null {
  const trimmed = url.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return null;
  try {
    const parsed = new URL(trimmed);
    return ["http:", "https:", "mailto:"].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

const BARE_URL = /https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"]/y;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = "";
  const flush = () => {
    if (plain) out.push({ kind: "text", text: plain });
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    if (text[i] === "\n") {
      flush();
      out.push({ kind: "break" });
      i++;
      continue;
    }
    if (text[i] === "\\" && i + 1 < text.length && /[\\`*_[\]()#-]/.test(text[i + 1]!)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    let m = /^`([^`\n]+)`/.exec(rest);
    if (m) {
      flush();
      out.push({ kind: "code", text: m[1]! });
      i += m[0].length;
      continue;
    }
    m = /^\*\*(?=\S)([\s\S]*?\S)\*\*/.exec(rest);
    if (m) {
      flush();
      out.push({ kind: "strong", children: parseInline(m[1]!) });
      i += m[0].length;
      continue;
    }
    m = /^([*_])(?=\S)([^*_\n]*?\S)\1(?![*_\w])/.exec(rest);
    if (m && (m[1] === "*" || i === 0 || !/\w/.test(text[i - 1]!))) {
      flush();
      out.push({ kind: "em", children: parseInline(m[2]!) });
      i += m[0].length;
      continue;
    }
    m = /^\[([^\]\n]+)\]\(([^)\s]+)\)/.exec(rest);
    if (m) {
      const href = safeHref(m[2]!);
      flush();
      if (href) out.push({ kind: "link", href, children: parseInline(m[1]!) });
      else out.push({ kind: "text", text: m[0] });
      i += m[0].length;
      continue;
    }
    if ((text[i] === "h" || text[i] === "H") && (i === 0 || !/\w/.test(text[i - 1]!))) {
      BARE_URL.lastIndex = i;
      const url = BARE_URL.exec(text);
      const href = url ? safeHref(url[0]) : null;
      if (url && href) {
        flush();
        out.push({ kind: "link", href, children: [{ kind: "text", text: url[0] }] });
        i += url[0].length;
        continue;
      }
    }
    plain += text[i];
    i++;
  }
  flush();
  return out;
}

const BULLET = /^\s{0,3}[-*]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}```/;

export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length) blocks.push({ kind: "paragraph", children: parseInline(paragraph.join("\n")) });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) {
      endParagraph();
      const body: string[] = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]!); i++) body.push(lines[i]!);
      blocks.push({ kind: "code", text: body.join("\n") });
      continue;
    }
    if (!line.trim()) {
      endParagraph();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      endParagraph();
      blocks.push({ kind: "heading", children: parseInline(heading[1]!) });
      continue;
    }
    const ordered = NUMBERED.test(line);
    if (ordered || BULLET.test(line)) {
      endParagraph();
      const pattern = ordered ? NUMBERED : BULLET;
      const items: Inline[][] = [];
      for (; i < lines.length && pattern.test(lines[i]!); i++) items.push(parseInline(pattern.exec(lines[i]!)![1]!));
      i--;
      blocks.push({ kind: "list", ordered, items });
      continue;
    }
    paragraph.push(line);
  }
  endParagraph();
  return blocks;
}
