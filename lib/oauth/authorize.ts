import type { Executor } from "@/db/client";
import type { UserAccount } from "@/lib/auth/users";
import { findClient } from "./clients";
import { isDocumentClientId, resolveDocumentClient, type DocumentClient } from "./client-documents";
import { mcpResource, parseScope, SCOPE_NAMES, type Scope } from "./config";
import { CHALLENGE } from "./grants";

// The authorization request (RFC 6749 §4.1.1 with PKCE, OAuth 2.1): what the consent page
// shows and what its approval re-checks. The client is a registration (cbc_…) or a Client ID
// Metadata Document's URL (lib/oauth/client-documents.ts). An unknown client, a document
// that cannot be used, or a redirect_uri that is not exactly one the client registered (or
// its document lists) is shown as an error on the page and never redirected to (RFC 6749
// §4.1.2.1); every other problem goes back to the client's redirect_uri as an OAuth error
// with its state.

export type AuthorizeCheck =
  | { kind: "page-error"; message: string }
  | { kind: "redirect"; url: string }
  | {
      kind: "consent";
      /** host: where the client's metadata document is served (null: a registered client). */
      client: { id: string; name: string; host: string | null };
      /** A document's client, stored when the person approves. */
      document?: DocumentClient;
      redirectUri: string;
      state: string | null;
      codeChallenge: string;
      resource: string | null;
      /** What the person may grant (board:supervise only to a supervisor), and which of it was asked for. */
      offered: Scope[];
      requested: Scope[];
    };

export const AUTHORIZE_PARAMS = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "resource"] as const;

/** The client's redirect_uri with `params` added (an answer to the client: code, or error). */
export function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return url.toString();
}

export async function checkAuthorizeRequest(db: Executor, query: URLSearchParams, user: UserAccount, base: string): Promise<AuthorizeCheck> {
  for (const name of AUTHORIZE_PARAMS) {
    if (query.getAll(name).length > 1) return { kind: "page-error", message: `The request names ${name} more than once.` };
  }
  const clientId = query.get("client_id") ?? "";
  let client: { id: string; name: string; redirectUris: string[] } | null;
  let document: DocumentClient | undefined;
  if (isDocumentClientId(clientId)) {
    const resolved = await resolveDocumentClient(clientId);
    if (!resolved.ok) return { kind: "page-error", message: `This app names itself by a URL (client_id) that cannot be used: ${resolved.failure.description}. Nothing was granted.` };
    client = document = resolved.client;
  } else {
    client = await findClient(db, clientId);
    if (!client) return { kind: "page-error", message: "This app is not registered with Claimboard (unknown client_id)." };
  }
  const redirectUri = query.get("redirect_uri");
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    return { kind: "page-error", message: "The app asked to be sent back to an address it did not register (redirect_uri). Nothing was granted." };
  }
  const state = query.get("state");
  const back = (error: string, description: string): AuthorizeCheck => ({
    kind: "redirect", url: redirectWith(redirectUri, { error, error_description: description, state, iss: base }),
  });
  if (query.get("response_type") !== "code") return back("unsupported_response_type", "response_type must be code");
  const codeChallenge = query.get("code_challenge") ?? "";
  if (query.get("code_challenge_method") !== "S256" || !CHALLENGE.test(codeChallenge)) {
    return back("invalid_request", "PKCE is required: code_challenge (43 base64url characters) with code_challenge_method S256");
  }
  const asked = parseScope(query.get("scope"));
  if (!asked) return back("invalid_scope", "scope names a scope this server does not have");
  const resource = query.get("resource");
  if (resource !== null && resource !== mcpResource(base)) return back("invalid_target", `resource must be ${mcpResource(base)}`);
  const offered = SCOPE_NAMES.filter((s) => s !== "board:supervise" || user.role === "supervisor");
  const requested = asked.filter((s) => offered.includes(s));
  return { kind: "consent", client: { id: client.id, name: client.name, host: document?.host ?? null }, document, redirectUri, state, codeChallenge, resource, offered, requested };
}
