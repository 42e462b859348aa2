import { createServer, type Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { freePort } from "@/db/embedded";
import { attackFixture, mustSignIn, type AttackFixture } from "@/test/attacks/helpers";
import { startDocumentServer, type DocumentServer } from "./document-server";

// Client ID Metadata Documents end to end: the MCP SDK's own OAuth client, given a
// clientMetadataUrl, reads `client_id_metadata_document_supported` and names itself by that
// URL (no registration); the app fetches the document from a local https server (its
// self-signed certificate trusted by NODE_EXTRA_CA_CERTS; 127.0.0.1 allowed by the tests'
// WEBHOOKS_ALLOW_LOOPBACK=1); the person's consent (signed in over HTTP, the page's form
// posted as the browser would) shows the document's host; the code, tokens and tools follow.
// Each document the rules refuse is shown on the page and stores nothing.

let f: AttackFixture;
let docs: DocumentServer;
let callback: Server;
let redirectUrl: string;
const arrived: URL[] = [];
let person: { email: string; password: string; actorId: string };

const documentFor = (url: string, extra: Record<string, unknown> = {}) => ({
  client_id: url, client_name: "Doc connector", redirect_uris: [redirectUrl],
  grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", ...extra,
});

beforeAll(async () => {
  docs = await startDocumentServer();
  f = await attackFixture({ NODE_EXTRA_CA_CERTS: docs.certPath, WEBHOOKS_ALLOW_LOOPBACK: "1" });
  person = await f.person("doc-connector@example.com", "staff");
  const port = await freePort();
  redirectUrl = `http://127.0.0.1:${port}/callback`;
  callback = createServer((req, res) => {
    arrived.push(new URL(req.url!, redirectUrl));
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this window.");
  });
  await new Promise<void>((resolve) => callback.listen(port, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((resolve) => (callback ? callback.close(resolve) : resolve(undefined)));
  await docs?.close();
  f?.expectCleanLogs();
  await f?.close();
});

class DocumentProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  constructor(readonly clientMetadataUrl: string) {}
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return documentFor(this.clientMetadataUrl);
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    f.secret(tokens.access_token);
    if (tokens.refresh_token) f.secret(tokens.refresh_token);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const count = async (sql: string) => ((await f.database.client.unsafe(sql)) as unknown as [{ n: number }])[0].n;
const pageText = async (res: Response) => (await res.text()).replaceAll("<!-- -->", "");
const approveForm = (cookie: string, params: URLSearchParams) =>
  fetch(`${f.server.url}/api/oauth/approve`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: f.server.url },
    body: new URLSearchParams([...params, ["decision", "approve"], ["grant", "tasks:work"]]),
  });

test("the SDK client connects by URL: metadata → document fetched over https → consent shows its host → code → tokens → tools → refresh", async () => {
  const metadata = (await (await fetch(`${f.server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  expect(metadata.client_id_metadata_document_supported).toBe(true);
  expect(metadata.registration_endpoint).toBe(`${f.server.url}/api/oauth/register`);

  const url = `${docs.origin}/clients/connector.json`;
  docs.serve("/clients/connector.json", { body: documentFor(url), headers: { "cache-control": "max-age=300" } });
  const provider = new DocumentProvider(url);
  const mcpUrl = new URL(`${f.server.url}/api/mcp`);
  const clientsBefore = await count("SELECT count(*)::int AS n FROM oauth_clients");
  await expect(new Client({ name: "doc", version: "1.0.0" }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toThrow(/Unauthorized/i);
  expect(provider.client?.client_id).toBe(url);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.searchParams.get("client_id")).toBe(url);
  // No registration was made.
  expect(await count("SELECT count(*)::int AS n FROM oauth_clients")).toBe(clientsBefore);

  const cookie = await mustSignIn(f, person.email, person.password);
  const consent = await fetch(authorizationUrl, { headers: { cookie }, redirect: "manual" });
  expect(consent.status).toBe(200);
  const text = await pageText(consent);
  expect(text).toContain("Connect Doc connector to Claimboard");
  expect(text).toContain(new URL(url).host);
  expect(text).toContain("metadata document on");
  // Showing the page stores nothing; the approval stores the client, as its document says.
  expect(await count(`SELECT count(*)::int AS n FROM oauth_clients WHERE id = '${url}'`)).toBe(0);
  const approved = await approveForm(cookie, authorizationUrl.searchParams);
  const html = await approved.text();
  const code = /[?&]code=([A-Za-z0-9_-]{43})/.exec(html.replaceAll("&#38;", "&"))?.[1];
  expect(code, html).toBeTruthy();
  f.secret(code!);
  expect(await count(`SELECT count(*)::int AS n FROM oauth_clients WHERE id = '${url}' AND name = 'Doc connector'`)).toBe(1);
  // The page and the approval each needed the document; the cache (max-age=300) answered the second.
  expect(docs.hits.get("/clients/connector.json")).toBe(1);

  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(code!);
  const client = new Client({ name: "doc", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain("claim_next_task");
  await client.close();
  const [row] = (await f.database.client`SELECT c.client_id, c.person_id FROM oauth_connections c`) as unknown as [{ client_id: string; person_id: string }];
  expect(row).toEqual({ client_id: url, person_id: person.actorId });

  const refreshed = await fetch(`${f.server.url}/api/oauth/token`, {
    method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: url, refresh_token: provider.saved!.refresh_token! }),
  });
  expect(refreshed.status).toBe(200);
  const tokens = (await refreshed.json()) as OAuthTokens;
  f.secret(tokens.access_token);
  f.secret(tokens.refresh_token!);
}, 120_000);

test("refused, shown on the page, nothing stored: a foreign client_id, an unlisted redirect_uri, http, a private address, an oversized or slow document", async () => {
  const cookie = await mustSignIn(f, person.email, person.password);
  const serve = (name: string, extra: Record<string, unknown> = {}, delayMs?: number) => {
    const url = `${docs.origin}/clients/${name}.json`;
    docs.serve(`/clients/${name}.json`, { body: documentFor(url, extra), delayMs });
    return url;
  };
  const params = (clientId: string, redirect = redirectUrl) => new URLSearchParams({
    response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "s",
  });
  const cases: [string, URLSearchParams, RegExp][] = [
    ["foreign client_id", params(serve("foreign", { client_id: "https://other.example/client.json" })), /client_id must be exactly the URL/],
    ["unlisted redirect_uri", params(serve("listed"), `${redirectUrl}/other`), /did not register/],
    ["http", params(`http://127.0.0.1:${new URL(docs.origin).port}/clients/listed.json`), /must be https/],
    ["private address", params("https://10.1.2.3/clients/x.json"), /private, link-local, reserved/],
    ["oversized", params(serve("big", { padding: "x".repeat(6000) })), /larger than 5120 bytes/],
    ["slow", params(serve("slow", {}, 8_000)), /did not arrive within 5 s/],
  ];
  const before = { clients: await count("SELECT count(*)::int AS n FROM oauth_clients"), codes: await count("SELECT count(*)::int AS n FROM oauth_codes") };
  for (const [what, query, reason] of cases) {
    const page = await fetch(`${f.server.url}/oauth/authorize?${query}`, { headers: { cookie }, redirect: "manual" });
    expect(page.status, what).toBe(200);
    expect(page.headers.get("location"), what).toBeNull();
    const text = await pageText(page);
    expect(text, what).toContain("This connection cannot be made");
    expect(text.replaceAll("&#x27;", "'"), what).toMatch(reason);
    const approved = await approveForm(cookie, query);
    expect(approved.status, what).toBe(400);
    expect(approved.headers.get("location"), what).toBeNull();
  }
  expect(await count("SELECT count(*)::int AS n FROM oauth_clients")).toBe(before.clients);
  expect(await count("SELECT count(*)::int AS n FROM oauth_codes")).toBe(before.codes);
  // A URL client_id no person approved is unknown at the token endpoint.
  const token = await fetch(`${f.server.url}/api/oauth/token`, {
    method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", client_id: serve("never"), code: "x".repeat(43), redirect_uri: redirectUrl, code_verifier: "v".repeat(43) }),
  });
  expect(token.status).toBe(401);
  expect(await token.json()).toMatchObject({ error: "invalid_client" });
}, 120_000);
