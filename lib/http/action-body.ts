import type { ApiError } from "./errors";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, nestingDepth } from "./body";

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

const invalid = (message: string): ApiError => ({ code: "invalid_request", message });

/**
 * Why this server action request is refused; null when it may go on to Next.js. Bodies
 * over the API's 256 KiB are refused too: Next.js's own 1 MB limit answers a 500, and no
 * action takes more than a 64 KiB payload.
 */
export function actionBodyProblem(contentType: string | null, text: string): ApiError | null {
  if (/^multipart\/form-data/i.test(contentType ?? "")) return invalid("Server actions here take JSON arguments, not form data");
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) return { code: "payload_too_large", message: `Arguments exceed ${MAX_BODY_BYTES} bytes` };
  if (nestingDepth(text) > MAX_JSON_DEPTH) return invalid(`Arguments nest deeper than ${MAX_JSON_DEPTH} levels`);
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch {
    return invalid("Arguments are not JSON");
  }
  if (!Array.isArray(args)) return invalid("Arguments must be a JSON array");
  const reference = firstReference(args);
  return reference === null ? null : invalid(`Arguments may not hold references such as ${JSON.stringify(reference.slice(0, 12))}`);
}
