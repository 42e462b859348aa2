import { MAX_JSON_DEPTH, nestingDepth } from "./body";

// Next.js decodes a server action's arguments with React's reply decoder, which reads
// strings such as "$@1" or "$Q2" as references to other parts of the request; a made-up
// reference makes it throw, and the caller gets a 500. Every action here takes plain JSON
// (one object), which the browser encodes as a JSON array where a string starting with "$"
// is escaped as "$$…" — so anything else is refused with a 400 before Next.js decodes it.

/** Encodings of plain values React's encoder may emit for JSON-ish arguments. */
const PLAIN_VALUE = /^\$(\$|undefined$|NaN$|-?Infinity$|-0$|D|n-?\d+$)/;

function firstReference(value: unknown, depth = 0): string | null {
  if (typeof value === "string") return value.startsWith("$") && !PLAIN_VALUE.test(value) ? value : null;
  if (value === null || typeof value !== "object" || depth > MAX_JSON_DEPTH) return null;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const found = firstReference(item, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** Why this server action request body is refused; null when it may go on to Next.js. */
export function actionBodyProblem(contentType: string | null, text: string): string | null {
  if (/^multipart\/form-data/i.test(contentType ?? "")) return "Server actions here take JSON arguments, not form data";
  if (nestingDepth(text) > MAX_JSON_DEPTH) return `Arguments nest deeper than ${MAX_JSON_DEPTH} levels`;
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch {
    return "Arguments are not JSON";
  }
  if (!Array.isArray(args)) return "Arguments must be a JSON array";
  const reference = firstReference(args);
  return reference === null ? null : `Arguments may not hold references such as ${JSON.stringify(reference.slice(0, 12))}`;
}
