import { createServer, type Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { chromium, type Browser } from "@playwright/test";
import { afterAll, beforeAll, expect, test } from "vitest";
import { freePort } from "@/db/embedded";
import { listAgentTokens } from "@/lib/auth/token-list";
import { hashToken, revokeAgentToken } from "@/lib/auth/tokens";
import { attackFixture, mustSignIn, type AttackFixture } from "@/test/attacks/helpers";

// The whole connector flow as a person meets it, with the MCP SDK's own client and its
// OAuth support: the client finds the metadata from /api/mcp's 401, registers itself,
// sends the person's browser (real Chromium) to the consent page, which asks them to sign
// in (next-auth) and then to approve; the code comes back to the client's loopback
// redirect, the SDK exchanges it (PKCE) and lists the tools; the token refreshes; revoked
// on /agents, the next call is a 401 naming the resource metadata.

let f: AttackFixture;
let browser: Browser;
let callback: Server;
let redirectUrl: string;
const arrived: URL[] = [];
let person: { email: string; password: string; actorId: string };

beforeAll(async () => {
  f = await attackFixture();
  person = await f.person("connector@example.com", "staff");
  const port = await freePort();
  redirectUrl = `http://127.0.0.1:${port}/callback`;
  callback = createServer((req, res) => {
    arrived.push(new URL(req.url!, redirectUrl));
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this window.");
  });
  await new Promise<void>((resolve) => callback.listen(port, "127.0.0.1", resolve));
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (callback ? callback.close(resolve) : resolve(undefined)));
  f?.expectCleanLogs();
  await f?.close();
});

/** The SDK's OAuth client provider, keeping everything in memory; "redirecting" remembers the URL for the browser. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test connector", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
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

test("sign in once: SDK client → 401 → registration → consent page in Chromium (sign-in, approve) → code → tokens → tools → refresh → revoke → 401", async () => {
  const provider = new MemoryProvider();
  const mcpUrl = new URL(`${f.server.url}/api/mcp`);
  const first = new Client({ name: "connector", version: "1.0.0" });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toThrow(/Unauthorized/i);
  expect(provider.client?.client_id).toMatch(/^cbc_/);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${f.server.url}/oauth/authorize`);
  expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");

  // The person's browser: not signed in, so the sign-in page first, then the consent page.
  const page = await browser.newPage();
  await page.goto(authorizationUrl.toString());
  await page.waitForURL(/\/login/);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(/\/oauth\/authorize/);
  await expect(page.getByRole("heading", { name: "Connect Test connector to Claimboard" }).isVisible()).resolves.toBe(true);
  expect(await page.getByText(redirectUrl).isVisible()).toBe(true);
  // A staff member is not offered the supervisor's scope.
  expect(await page.getByText("board:supervise").count()).toBe(0);
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
  await page.close();
  // (The browser also asks the callback server for /favicon.ico.)
  const back = arrived.filter((u) => u.pathname === "/callback").at(-1)!;
  expect(back.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"));
  expect(back.searchParams.get("iss")).toBe(f.server.url);
  const code = back.searchParams.get("code")!;
  f.secret(code);

  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(code);
  const client = new Client({ name: "connector", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain("claim_next_task");
  await client.close();

  // The connection is an agent token owned by the person, audited as their act.
  const access = provider.saved!.access_token;
  const [row] = (await f.database.client`
    SELECT t.name, t.role, c.person_id FROM agent_tokens t JOIN oauth_connections c ON c.token_id = t.id WHERE t.token_hash = ${hashToken(access)}`) as unknown as [{ name: string; role: string; person_id: string }];
  expect(row.person_id).toBe(person.actorId);
  expect(row.name).toMatch(/^mcp-test-connector-/);
  // /agents lists it with its client and owner (the page's list is listAgentTokens).
  const listed = (await listAgentTokens(f.database.db)).find((t) => t.name === row.name)!;
  expect(listed.connection).toEqual({ client: "Test connector", owner: "connector" });
  expect(listed.lastUsedAt).not.toBeNull();

  // Refresh at the token endpoint, as the SDK does when the access token expires.
  const refreshed = await fetch(`${f.server.url}/api/oauth/token`, {
    method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", client_id: provider.client!.client_id, refresh_token: provider.saved!.refresh_token! }),
  });
  expect(refreshed.status).toBe(200);
  const tokens = (await refreshed.json()) as OAuthTokens;
  f.secret(tokens.access_token);
  f.secret(tokens.refresh_token!);

  // Revoked on /agents (the page's revoke is revokeAgentToken by name): the next call is a 401 naming the metadata.
  expect(await revokeAgentToken(f.database.db, row.name)).toBe(true);
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${f.server.url}/.well-known/oauth-protected-resource/api/mcp"`);
}, 120_000);

test("the consent page and its form refuse what they must: unregistered redirect (shown, never followed), no PKCE, foreign or missing Origin, no session, a denial", async () => {
  const cookie = await mustSignIn(f, person.email, person.password);
  const registered = await fetch(`${f.server.url}/api/oauth/register`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Checks", redirect_uris: [redirectUrl] }),
  }).then((r) => r.json() as Promise<{ client_id: string }>);
  const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
  const params = { response_type: "code", client_id: registered.client_id, redirect_uri: redirectUrl, code_challenge: challenge, code_challenge_method: "S256", state: "s1" };
  const authorize = (p: Record<string, string>) =>
    fetch(`${f.server.url}/oauth/authorize?${new URLSearchParams(p)}`, { headers: { cookie }, redirect: "manual" });

  const elsewhere = await authorize({ ...params, redirect_uri: `${redirectUrl}/other` });
  expect(elsewhere.status).toBe(200);
  expect(elsewhere.headers.get("location")).toBeNull();
  expect(await elsewhere.text()).toContain("did not register");

  const noPkce = await authorize({ ...params, code_challenge: "", code_challenge_method: "plain" });
  expect(noPkce.status).toBeGreaterThanOrEqual(300);
  const to = new URL(noPkce.headers.get("location")!);
  expect(to.origin + to.pathname).toBe(redirectUrl);
  expect(Object.fromEntries(to.searchParams)).toMatchObject({ error: "invalid_request", state: "s1" });

  const consent = await authorize(params);
  expect(consent.status).toBe(200);
  expect((await consent.text()).replaceAll("<!-- -->", "")).toContain("Connect Checks to Claimboard");

  const approve = (headers: Record<string, string>, extra: Record<string, string> = {}) =>
    fetch(`${f.server.url}/api/oauth/approve`, {
      method: "POST", redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams({ ...params, decision: "approve", grant: "tasks:work", ...extra }),
    });
  const codesBefore = (await f.database.client`SELECT count(*)::int AS n FROM oauth_codes`)[0]!.n;
  expect((await approve({ cookie })).status).toBe(403);
  expect((await approve({ cookie, origin: "https://evil.example" })).status).toBe(403);
  expect((await approve({ origin: f.server.url })).status).toBe(401);
  const denied = await approve({ cookie, origin: f.server.url }, { decision: "deny" });
  expect(denied.status).toBe(200);
  expect(await denied.text()).toMatch(/url=http:\/\/127\.0\.0\.1:\d+\/callback\?error=access_denied/);
  // A staff member's "supervise" is not on offer: with nothing else granted, that is a denial too.
  const overreach = await approve({ cookie, origin: f.server.url }, { grant: "board:supervise" });
  expect(await overreach.text()).toContain("error=access_denied");
  expect((await f.database.client`SELECT count(*)::int AS n FROM oauth_codes`)[0]!.n).toBe(codesBefore);
  const approved = await approve({ cookie, origin: f.server.url });
  expect(await approved.text()).toMatch(/callback\?code=[A-Za-z0-9_-]{43}&#38;state=s1&#38;iss=/);
  expect((await f.database.client`SELECT count(*)::int AS n FROM oauth_codes`)[0]!.n).toBe(codesBefore + 1);
});

test("registration is throttled per address (each one writes a row): past the burst, 429 too_many_requests with Retry-After, nothing written", async () => {
  const register = () => fetch(`${f.server.url}/api/oauth/register`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Flood", redirect_uris: [redirectUrl] }),
  });
  let refused: Response | null = null;
  for (let i = 0; i < 40 && !refused; i++) {
    const res = await register();
    if (res.status === 429) refused = res;
    else expect(res.status).toBe(201);
  }
  expect(refused, "no registration was throttled").not.toBeNull();
  expect(await refused!.json()).toMatchObject({ error: "too_many_requests" });
  expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
  const before = (await f.database.client`SELECT count(*)::int AS n FROM oauth_clients`)[0]!.n;
  expect((await register()).status).toBe(429);
  expect((await f.database.client`SELECT count(*)::int AS n FROM oauth_clients`)[0]!.n).toBe(before);
});
