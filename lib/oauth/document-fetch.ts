import https from "node:https";
import { isIP } from "node:net";
import { guardedLookup } from "@/lib/webhooks/deliver";
import { addressRefusal, urlRefusal } from "@/lib/webhooks/targets";

// One GET of a client's metadata document (docs/mcp.md, "Client ID Metadata Documents"),
// under the webhook address rules (lib/webhooks/targets.ts): the host is resolved and judged
// first (an IP literal never reaches a lookup hook), and every connection's address again
// (DNS rebinding). https only, no redirects followed (a 3xx is a refusal: the document's URL
// is the client's identity), at most MAX_DOCUMENT_BYTES, and one deadline for the whole
// exchange, so a server that trickles its answer is cut off like a silent one.

/** The draft's recommended bound (draft-ietf-oauth-client-id-metadata-document §6.6): 5 kB. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** The longest a fetched document is believed, whatever its Cache-Control says. */
export const MAX_CACHE_SECONDS = 24 * 60 * 60;

export interface FetchOptions {
  /** Tests' self-signed certificate (the server itself trusts its test CA by NODE_EXTRA_CA_CERTS). */
  ca?: string;
  timeoutMs?: number;
}

export type Fetched = { ok: true; body: unknown; cacheSeconds: number } | { ok: false; reason: string };

/**
 * How long an answer may be reused (RFC 9111 §4.2.1): no-store or no-cache, never; else
 * s-maxage or max-age, else Expires against Date; nothing said, not at all. Capped.
 */
export function freshSeconds(headers: { cacheControl?: string; expires?: string; date?: string }): number {
  const directives = (headers.cacheControl ?? "").toLowerCase().split(",").map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return 0;
  const age = (name: string) => {
    const found = directives.find((d) => d.startsWith(`${name}=`));
    const seconds = found ? Number(found.slice(name.length + 1).replace(/"/g, "")) : NaN;
    return Number.isInteger(seconds) && seconds >= 0 ? seconds : null;
  };
  let seconds = age("s-maxage") ?? age("max-age");
  if (seconds === null && headers.expires) {
    const expires = Date.parse(headers.expires);
    const now = headers.date ? Date.parse(headers.date) : Date.now();
    seconds = Number.isNaN(expires) || Number.isNaN(now) ? 0 : Math.max(0, Math.floor((expires - now) / 1000));
  }
  return Math.min(seconds ?? 0, MAX_CACHE_SECONDS);
}

export async function fetchDocument(url: string, options: FetchOptions = {}): Promise<Fetched> {
  const refusal = await urlRefusal(url);
  if (refusal) return { ok: false, reason: refusal.replace(/^url/, "the client_id URL") };
  // urlRefusal lets tests register TEST-NET-2 (WEBHOOKS_ALLOW_TEST_NET), trusting the
  // connection's lookup to refuse it; an IP literal is connected to with no lookup at all.
  const literal = new URL(url).hostname.replace(/^\[|\]$/g, "");
  const literalRefusal = isIP(literal) ? addressRefusal(literal) : null;
  if (literalRefusal) return { ok: false, reason: `the client_id URL points to an address that is not allowed: ${literalRefusal}` };
  const timeoutMs = options.timeoutMs ?? DOCUMENT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Fetched) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(outcome);
    };
    const request = https.get(url, {
      headers: { accept: "application/json", "user-agent": "Claimboard-OAuth/1" },
      lookup: guardedLookup,
      ...(options.ca ? { ca: options.ca } : {}),
    }, (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) return done({ ok: false, reason: `fetching the document answered HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}` });
      const declared = Number(response.headers["content-length"] ?? "0");
      if (declared > MAX_DOCUMENT_BYTES) return done({ ok: false, reason: `the document is larger than ${MAX_DOCUMENT_BYTES} bytes` });
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_DOCUMENT_BYTES) done({ ok: false, reason: `the document is larger than ${MAX_DOCUMENT_BYTES} bytes` });
        else chunks.push(chunk);
      });
      response.on("end", () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          return done({ ok: false, reason: "the document is not JSON" });
        }
        const header = (name: string) => [response.headers[name]].flat()[0];
        done({ ok: true, body, cacheSeconds: freshSeconds({ cacheControl: header("cache-control"), expires: header("expires"), date: header("date") }) });
      });
      response.on("error", (error) => done({ ok: false, reason: `fetching the document failed: ${error.message}` }));
    });
    const deadline = setTimeout(() => done({ ok: false, reason: `the document did not arrive within ${timeoutMs / 1000} s` }), timeoutMs);
    request.on("error", (error) => done({ ok: false, reason: `fetching the document failed: ${error.message}` }));
  });
}
