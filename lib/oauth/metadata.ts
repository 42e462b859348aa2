import { ACCESS_TOKEN_SECONDS, mcpResource, SCOPE_NAMES } from "./config";

// RFC 9728 (protected resource) and RFC 8414 (authorization server) metadata: what an MCP
// client reads after /api/mcp's 401 to find out where to register, sign in and get tokens.

export function protectedResourceMetadata(base: string) {
  return {
    resource: mcpResource(base),
    authorization_servers: [base],
    scopes_supported: SCOPE_NAMES,
    bearer_methods_supported: ["header"],
    resource_name: "Claimboard",
    resource_documentation: `${base}/api-reference`,
  };
}

export function authorizationServerMetadata(base: string) {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/api/oauth/token`,
    registration_endpoint: `${base}/api/oauth/register`,
    revocation_endpoint: `${base}/api/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: SCOPE_NAMES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    // A client_id may also be the https URL of the client's metadata document (lib/oauth/client-documents.ts).
    client_id_metadata_document_supported: true,
    // Not standard metadata; says how long an access token lives, for people reading it.
    access_token_lifetime_seconds: ACCESS_TOKEN_SECONDS,
  };
}

export const metadataResponse = (body: object) =>
  Response.json(body, { headers: { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" } });
