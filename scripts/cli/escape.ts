/**
 * One cell of the CLI's tab-separated output, safe to print to a terminal: a control
 * character (escape sequences, tabs and new lines that would break the row) or a bidi mark
 * becomes a visible escape (\x1b, \t, \n, \u202e), and a backslash is doubled so an escape
 * cannot be faked. Titles are refused with these at the door (lib/tasks/core/schemas.ts
 * lineText), but a row written before that, or by hand, may still hold them.
 */
const NAMED: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\" };

export function cell(value: string): string {
  return value.replace(/[\u0000-\u001F\u007F-\u009F\\\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, (c) => {
    if (NAMED[c]) return NAMED[c];
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * One row of a CLI table: every cell escaped by `cell`, joined by `separator` (a tab, or two
 * spaces for the lists people read). The one way a list command prints what others wrote.
 */
export const row = (cells: readonly string[], separator = "\t"): string => cells.map(cell).join(separator);
