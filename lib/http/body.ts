import type { ApiError } from "./errors";

/** Bodies larger than this are refused with 413 (docs/contract.md#basics). */
export const MAX_BODY_BYTES = 256 * 1024;

/** Deeper JSON is refused before parsing: recursive validation of it would exhaust the stack. */
export const MAX_JSON_DEPTH = 64;

/** The deepest bracket nesting of a JSON text, ignoring brackets inside strings. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth);
    else if (c === "]" || c === "}") depth--;
  }
  return deepest;
}

/**
 * A body of at most `max` bytes, or null when it is larger: a declared Content-Length over the
 * limit is refused before reading anything, and a stream that grows past it is cut off there
 * (never read whole first, then measured).
 */
export async function readBodyBytes(request: Request, max: number): Promise<Buffer | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > max) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a JSON body of at most MAX_BODY_BYTES (readBodyBytes): a declared Content-Length over the limit is
 * refused before reading anything, and a stream that grows past it is cut off there.
 * An empty body is `{}`; bytes that are not UTF-8 or not JSON are a 400.
 */
export async function readJsonBody(request: Request): Promise<{ ok: true; value: unknown } | { ok: false; error: ApiError }> {
  const tooLarge = { ok: false as const, error: { code: "payload_too_large" as const, message: `Request body exceeds ${MAX_BODY_BYTES} bytes` } };
  const bytes = await readBodyBytes(request, MAX_BODY_BYTES);
  if (!bytes) return tooLarge;
  if (bytes.byteLength === 0) return { ok: true, value: {} };

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: { code: "invalid_request", message: "Request body is not valid UTF-8" } };
  }
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    return { ok: false, error: { code: "invalid_request", message: `Request body nests deeper than ${MAX_JSON_DEPTH} levels` } };
  }
  let proto = false;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v: unknown) => {
      if (key === "__proto__") proto = true;
      return v;
    });
  } catch {
    return { ok: false, error: { code: "invalid_request", message: "Request body is not valid JSON" } };
  }
  // Every copy of an object (the schemas' among them) drops an own "__proto__" key without a
  // word, so a payload would lose it silently: said instead.
  if (proto) return { ok: false, error: { code: "invalid_request", message: "Request body has a key named __proto__, which cannot be kept: rename it" } };
  return { ok: true, value };
}
