import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { oauthClients } from "@/db/schema";
import { validateRegistration } from "./clients";
import { fetchDocument, type FetchOptions } from "./document-fetch";
import { fail, type OAuthFailure } from "./errors";

// Client ID Metadata Documents (MCP authorization 2025-11-25; draft-ietf-oauth-client-id-
// metadata-document): a client with no registration here names itself by an https URL, and
// that URL serves its metadata. The document is held to registration's rules (public client,
// exact redirect URIs, lib/oauth/clients.ts) plus the draft's own: its client_id is the URL,
// character for character, and it has no secret. Kept in memory as long as its HTTP caching
// headers allow (never past a day); a refused document is not kept, so a fixed one works at
// once. Nothing is written to the database until a person approves (rememberDocumentClient:
// codes and connections name their client by a row).

const MAX_URL = 2000;
const MAX_CACHED = 500;

export interface DocumentClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** The host that serves the document: the only part of its identity this server can vouch for. */
  host: string;
  document: Record<string, unknown>;
}

export type Resolved = { ok: true; client: DocumentClient } | { ok: false; failure: OAuthFailure };

// On globalThis: Next.js may load this module once per bundle (the consent page's and the
// approval route's), and both must see one cache.
const holder = globalThis as unknown as { claimboardClientDocuments?: Map<string, { client: DocumentClient; until: number }> };
const cache = (holder.claimboardClientDocuments ??= new Map());

/** A client_id that names a metadata document rather than a registration (those are cbc_…). */
export const isDocumentClientId = (clientId: string) => clientId.toLowerCase().startsWith("https:") || clientId.toLowerCase().startsWith("http:");

/** Why this URL cannot be a client_id (draft §3), or null. */
export function clientIdUrlProblem(raw: string): string | null {
  if (raw.length > MAX_URL) return `a client_id URL is at most ${MAX_URL} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "client_id is not a URL";
  }
  if (url.protocol !== "https:") return "a client_id URL must be https";
  if (url.username || url.password) return "a client_id URL must not carry credentials";
  if (raw.includes("#")) return "a client_id URL must not have a fragment";
  if (url.pathname === "/" || url.pathname === "") return "a client_id URL must have a path";
  if (/\/\.{1,2}(\/|$)/.test(raw.replace(/[?].*$/, ""))) return "a client_id URL must not have . or .. segments";
  // The URL is compared as a string: one the parser would rewrite (case, default port, %-escapes) names another document.
  if (url.href !== raw) return `a client_id URL must be written as ${url.href}`;
  return null;
}

/** Why this document cannot stand for client `url`, or the client it describes. */
export function readDocument(url: string, body: unknown): Resolved {
  const refuse = (description: string): Resolved => ({ ok: false, failure: fail("invalid_client", `client metadata document ${url}: ${description}`) });
  if (typeof body !== "object" || body === null || Array.isArray(body)) return refuse("is not a JSON object");
  const document = body as Record<string, unknown>;
  if (document.client_id !== url) return refuse("its client_id must be exactly the URL it is served from");
  if ("client_secret" in document || "client_secret_expires_at" in document) return refuse("must not carry a client secret");
  const method = document.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") return refuse("token_endpoint_auth_method must be none (public clients only)");
  const checked = validateRegistration(document);
  if (!checked.ok) return refuse(checked.failure.description);
  return {
    ok: true,
    client: { id: url, name: checked.client.client_name, redirectUris: checked.client.redirect_uris, host: new URL(url).host, document },
  };
}

/** The client a document URL names: from the cache while fresh, else fetched and checked. */
export async function resolveDocumentClient(url: string, options: FetchOptions = {}): Promise<Resolved> {
  const problem = clientIdUrlProblem(url);
  if (problem) return { ok: false, failure: fail("invalid_client", problem) };
  const cached = cache.get(url);
  if (cached && cached.until > Date.now()) return { ok: true, client: cached.client };
  cache.delete(url);
  const fetched = await fetchDocument(url, options);
  if (!fetched.ok) return { ok: false, failure: fail("invalid_client", `client metadata document ${url}: ${fetched.reason}`) };
  const read = readDocument(url, fetched.body);
  if (read.ok && fetched.cacheSeconds > 0) {
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(url, { client: read.client, until: Date.now() + fetched.cacheSeconds * 1000 });
  }
  return read;
}

/** Tests: forget what was fetched. */
export const forgetDocuments = () => cache.clear();

/** The approved client's row, as its document says now: codes and connections refer to it. */
export async function rememberDocumentClient(db: Executor, client: DocumentClient): Promise<void> {
  await db
    .insert(oauthClients)
    .values({ id: client.id, name: client.name, redirectUris: client.redirectUris, metadata: client.document })
    .onConflictDoUpdate({
      target: oauthClients.id,
      set: { name: sql`excluded.name`, redirectUris: sql`excluded.redirect_uris`, metadata: sql`excluded.metadata` },
    });
}
