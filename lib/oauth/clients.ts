import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Executor } from "@/db/client";
import { oauthClients } from "@/db/schema";
import { fail, type OAuthFailure } from "./errors";
import { parseScope } from "./config";

// Dynamic client registration (RFC 7591). The metadata is read with the MCP SDK's own
// schema (OAuthClientMetadataSchema) and then held to this server's rules: public clients
// only (no secret: token_endpoint_auth_method "none", PKCE S256 at every authorization),
// the code and refresh-token grants, redirect URIs that are exact strings — https, http
// only on a loopback address (RFC 8252 §7.3), or an app's private-use scheme (§7.1) — with
// no fragment.

const MAX_REDIRECTS = 10;
const MAX_URI = 2000;
const MAX_NAME = 100;
const REFUSED_SCHEMES = new Set(["javascript:", "data:", "file:", "blob:", "vbscript:", "about:", "ws:", "wss:", "ftp:"]);
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none";
  scope?: string;
}

/** Why a redirect URI cannot be registered, or null. */
export function redirectProblem(uri: string): string | null {
  if (uri.length > MAX_URI) return `a redirect URI is longer than ${MAX_URI} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URI`;
  }
  if (url.hash || uri.includes("#")) return "a redirect URI must not have a fragment";
  if (REFUSED_SCHEMES.has(url.protocol)) return `redirect URIs of scheme ${url.protocol} are refused`;
  if (url.protocol === "http:" && !LOOPBACK.has(url.hostname)) return "an http redirect URI must be on a loopback address (localhost, 127.0.0.1, [::1]); use https";
  if (url.protocol === "https:" && !url.hostname) return "an https redirect URI needs a host";
  return null;
}

export function validateRegistration(body: unknown): { ok: true; client: Omit<RegisteredClient, "client_id" | "client_id_issued_at"> } | { ok: false; failure: OAuthFailure } {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "body";
    const redirect = where.startsWith("redirect_uris");
    return { ok: false, failure: fail(redirect ? "invalid_redirect_uri" : "invalid_client_metadata", `${where}: ${issue?.message ?? "invalid"}`) };
  }
  const meta = parsed.data;
  if (meta.redirect_uris.length === 0) return { ok: false, failure: fail("invalid_redirect_uri", "redirect_uris must name at least one URI") };
  if (meta.redirect_uris.length > MAX_REDIRECTS) return { ok: false, failure: fail("invalid_redirect_uri", `at most ${MAX_REDIRECTS} redirect URIs`) };
  for (const uri of meta.redirect_uris) {
    const problem = redirectProblem(uri);
    if (problem) return { ok: false, failure: fail("invalid_redirect_uri", problem) };
  }
  const grants = meta.grant_types ?? ["authorization_code", "refresh_token"];
  if (!grants.includes("authorization_code") || grants.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
    return { ok: false, failure: fail("invalid_client_metadata", "grant_types: this server offers authorization_code and refresh_token only") };
  }
  const responses = meta.response_types ?? ["code"];
  if (responses.some((r) => r !== "code")) return { ok: false, failure: fail("invalid_client_metadata", "response_types: only code") };
  if (meta.scope !== undefined && parseScope(meta.scope) === null) return { ok: false, failure: fail("invalid_client_metadata", "scope names a scope this server does not have") };
  const name = (meta.client_name ?? "").trim() || "Unnamed client";
  if (name.length > MAX_NAME || /[\p{Cc}\p{Cf}]/u.test(name)) return { ok: false, failure: fail("invalid_client_metadata", `client_name: at most ${MAX_NAME} printable characters`) };
  return {
    ok: true,
    client: {
      client_name: name,
      redirect_uris: meta.redirect_uris,
      grant_types: grants,
      response_types: ["code"],
      // Public clients: whatever method was asked for, no secret is issued (RFC 7591 §3.2.1 lets the server replace it).
      token_endpoint_auth_method: "none",
      ...(meta.scope !== undefined ? { scope: meta.scope } : {}),
    },
  };
}

export async function registerClient(db: Executor, client: Omit<RegisteredClient, "client_id" | "client_id_issued_at">): Promise<RegisteredClient> {
  const id = `cbc_${randomBytes(16).toString("base64url")}`;
  const [row] = await db
    .insert(oauthClients)
    .values({ id, name: client.client_name, redirectUris: client.redirect_uris, metadata: client })
    .returning({ createdAt: oauthClients.createdAt });
  return { client_id: id, client_id_issued_at: Math.floor(row!.createdAt.getTime() / 1000), ...client };
}

/** A registered client, or a document's client a person has approved (lib/oauth/client-documents.ts). */
export async function findClient(db: Executor, clientId: string) {
  if (!/^cbc_[A-Za-z0-9_-]{22}$/.test(clientId) && !(clientId.startsWith("https://") && clientId.length <= 2000)) return null;
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId));
  return row ?? null;
}
