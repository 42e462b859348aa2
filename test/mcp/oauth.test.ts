import { createHash, randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { z } from "zod";
import * as people from "@/lib/auth/people";
import { databaseClock, SYSTEM_ACTOR, type Operation } from "@/lib/tasks";
import { hashToken, revokeAgentToken } from "@/lib/auth/tokens";
import { issueCode } from "@/lib/oauth/grants";
import { attackFixture, type AttackFixture } from "@/test/attacks/helpers";

// OAuth 2.1 for /api/mcp over real HTTP against the built app: the metadata (RFC 9728,
// RFC 8414), dynamic registration (RFC 7591), the token endpoint (code + PKCE S256, refresh
// with rotation and family revocation on replay), the access token on /api/mcp, expiry,
// revocation on /agents, and the 401 that names the resource metadata. The person's
// approval is the consent page's own call (issueCode), made here on the database.

let f: AttackFixture;
let staff: { actorId: string };
let supervisor: { actorId: string };

beforeAll(async () => {
  // Registration is throttled like failed authentications (20 at once by default); this file registers more.
  f = await attackFixture({ AUTH_FAILURE_BURST: "1000" });
  staff = await f.person("oauth-staff@example.com", "staff");
  supervisor = await f.person("oauth-sup@example.com", "supervisor");
});
afterAll(async () => {
  f?.expectCleanLogs();
  await f?.close();
});

const json = async (res: Response) => ({ status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> });
const register = (body: unknown) =>
  fetch(`${f.server.url}/api/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(json);
const token = (params: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${f.server.url}/api/oauth/token`, {
    method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(params).toString(),
  }).then(json);
const mcp = (bearer: string | null, method = "tools/list") =>
  fetch(`${f.server.url}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }),
  });

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

const REDIRECT = "http://127.0.0.1:33418/callback";

async function newClient(name = "Claude Code") {
  const res = await register({ client_name: name, redirect_uris: [REDIRECT] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.client_id as string;
}

/** The person approves on the consent page; the client gets a code. */
async function approve(clientId: string, person: { actorId: string }, scopes: ("tasks:read" | "tasks:work" | "board:supervise")[] = ["tasks:work"]) {
  const { verifier, challenge } = pkce();
  const code = await issueCode(f.database.db, { clientId, personId: person.actorId, redirectUri: REDIRECT, scopes, codeChallenge: challenge, resource: `${f.server.url}/api/mcp` });
  return { code, verifier };
}

const expectOAuthError = (res: { status: number; body: Record<string, unknown>; headers: Headers }, error: string, status = 400) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(["error", "error_description"]);
  expect(res.body.error).toBe(error);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.body).not.toHaveProperty("access_token");
};

describe("discovery", () => {
  test("an anonymous /api/mcp call: 401 whose WWW-Authenticate names the resource metadata; the metadata names the authorization server", async () => {
    const res = await mcp(null);
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate")!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${f.server.url}/.well-known/oauth-protected-resource/api/mcp`);
    for (const url of [metadataUrl!, `${f.server.url}/.well-known/oauth-protected-resource`]) {
      const prm = await json(await fetch(url));
      expect(prm.status).toBe(200);
      expect(prm.body).toMatchObject({ resource: `${f.server.url}/api/mcp`, authorization_servers: [f.server.url], bearer_methods_supported: ["header"] });
    }
    const as = await json(await fetch(`${f.server.url}/.well-known/oauth-authorization-server`));
    expect(as.body).toMatchObject({
      issuer: f.server.url,
      authorization_endpoint: `${f.server.url}/oauth/authorize`,
      token_endpoint: `${f.server.url}/api/oauth/token`,
      registration_endpoint: `${f.server.url}/api/oauth/register`,
      revocation_endpoint: `${f.server.url}/api/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      response_types_supported: ["code"],
      token_endpoint_auth_methods_supported: ["none"],
    });
    expect(as.body.scopes_supported).toEqual(["tasks:read", "tasks:work", "board:supervise"]);
  });
});

describe("registration (RFC 7591)", () => {
  test("a public client is registered with exactly its redirect URIs; no secret is issued", async () => {
    const res = await register({ client_name: "Desktop", redirect_uris: ["https://claude.ai/api/mcp/auth_callback", REDIRECT], token_endpoint_auth_method: "client_secret_post" });
    expect(res.status).toBe(201);
    expect(res.body.client_id).toMatch(/^cbc_/);
    expect(res.body).toMatchObject({ client_name: "Desktop", redirect_uris: ["https://claude.ai/api/mcp/auth_callback", REDIRECT], token_endpoint_auth_method: "none" });
    expect(res.body).not.toHaveProperty("client_secret");
  });

  test("bad metadata: an OAuth error of RFC 7591's shape, nothing registered", async () => {
    const before = (await f.database.client`SELECT count(*)::int AS n FROM oauth_clients`)[0]!.n;
    for (const [body, error] of [
      [{ client_name: "x", redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
      [{ client_name: "x", redirect_uris: ["https://app.example/cb#frag"] }, "invalid_redirect_uri"],
      [{ client_name: "x", redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
      [{ client_name: "x", redirect_uris: [] }, "invalid_redirect_uri"],
      [{ client_name: "x" }, "invalid_redirect_uri"],
      [{ client_name: "x", redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
      [{ client_name: "x", redirect_uris: [REDIRECT], response_types: ["token"] }, "invalid_client_metadata"],
      [{ client_name: "x", redirect_uris: [REDIRECT], scope: "admin" }, "invalid_client_metadata"],
      [{ client_name: "a\u202Eb", redirect_uris: [REDIRECT] }, "invalid_client_metadata"],
    ] as const) {
      expectOAuthError(await register(body), error);
    }
    const after = (await f.database.client`SELECT count(*)::int AS n FROM oauth_clients`)[0]!.n;
    expect(after).toBe(before);
  });
});

describe("tokens", () => {
  test("code + PKCE → access and refresh token; the access token works on /api/mcp as an agent owned by the person, audited", async () => {
    const clientId = await newClient();
    const { code, verifier } = await approve(clientId, staff);
    const res = await token({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT, resource: `${f.server.url}/api/mcp` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "tasks:work" });
    const access = f.secret(res.body.access_token as string);
    f.secret(res.body.refresh_token as string);
    const listed = await mcp(access);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(24);
    // The MCP SDK's own client, with the access token.
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${f.server.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${access}` } } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("claim_next_task");
    await client.close();
    const [row] = await f.database.client<{ role: string; expires: boolean; person: string; client: string }[]>`
      SELECT t.role, t.expires_at > now() AS expires, c.person_id AS person, c.client_id AS client
      FROM agent_tokens t JOIN oauth_connections c ON c.token_id = t.id WHERE t.token_hash = ${hashToken(access)}`;
    expect(row).toEqual({ role: "agent", expires: true, person: staff.actorId, client: clientId });
    const [audit] = await f.database.client<{ actor: string; detail: { via: string; clientId: string } }[]>`
      SELECT actor_id AS actor, detail FROM audit_events WHERE action = 'token_created' AND detail->>'clientId' = ${clientId}`;
    expect(audit).toMatchObject({ actor: staff.actorId, detail: { via: "oauth", clientId } });
  });

  test("refused token requests: each an OAuth error, nothing issued", async () => {
    const clientId = await newClient();
    const other = await newClient("Other");
    const { code, verifier } = await approve(clientId, staff);
    const good = { grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT };
    expectOAuthError(await token({ ...good, code_verifier: pkce().verifier }), "invalid_grant");
    expectOAuthError(await token({ ...good, code_verifier: "" }), "invalid_request");
    expectOAuthError(await token({ ...good, code_verifier: "short" }), "invalid_request");
    expectOAuthError(await token({ ...good, redirect_uri: "http://127.0.0.1:33418/callback/" }), "invalid_grant");
    expectOAuthError(await token({ ...good, client_id: other }), "invalid_grant");
    expectOAuthError(await token({ ...good, client_id: "cbc_unknownunknownunknown" }), "invalid_client", 401);
    expectOAuthError(await token({ ...good, code: "nope" }), "invalid_grant");
    expectOAuthError(await token({ ...good, grant_type: "password" }), "unsupported_grant_type");
    expectOAuthError(await token({ ...good, resource: "https://elsewhere.example/api/mcp" }), "invalid_target");
    expectOAuthError(await token(good, { authorization: `Basic ${Buffer.from(`${clientId}:x`).toString("base64")}` }), "invalid_client", 401);
    const twice = await fetch(`${f.server.url}/api/oauth/token`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${new URLSearchParams(good).toString()}&code=${code}`,
    }).then(json);
    expectOAuthError(twice, "invalid_request");
    const asJson = await fetch(`${f.server.url}/api/oauth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(good) }).then(json);
    expectOAuthError(asJson, "invalid_request");
    // None of those spent the code: the right request still gets its tokens.
    const res = await token(good);
    expect(res.status).toBe(200);
    f.secret(res.body.access_token as string);
    f.secret(res.body.refresh_token as string);
  });

  test("a code used twice: invalid_grant, and the connection the first use made is revoked", async () => {
    const clientId = await newClient();
    const { code, verifier } = await approve(clientId, staff);
    const params = { grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT };
    const first = await token(params);
    const access = f.secret(first.body.access_token as string);
    f.secret(first.body.refresh_token as string);
    expect((await mcp(access)).status).toBe(200);
    expectOAuthError(await token(params), "invalid_grant");
    expect((await mcp(access)).status).toBe(401);
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: first.body.refresh_token as string }), "invalid_grant");
  });

  test("refresh rotates both tokens; the old access token stops; a replayed refresh token revokes the whole family, audited", async () => {
    const clientId = await newClient();
    const { code, verifier } = await approve(clientId, staff);
    const first = await token({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    const [a1, r1] = [f.secret(first.body.access_token as string), f.secret(first.body.refresh_token as string)];
    const second = await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: r1 });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const [a2, r2] = [f.secret(second.body.access_token as string), f.secret(second.body.refresh_token as string)];
    expect(a2).not.toBe(a1);
    expect(r2).not.toBe(r1);
    expect((await mcp(a1)).status).toBe(401);
    expect((await mcp(a2)).status).toBe(200);
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: r2, scope: "tasks:work board:supervise" }), "invalid_scope");
    // r1 again: someone has a copy. Everything of the connection ends.
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: r1 }), "invalid_grant");
    expect((await mcp(a2)).status).toBe(401);
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: r2 }), "invalid_grant");
    const [audit] = await f.database.client<{ detail: { reason: string } }[]>`
      SELECT detail FROM audit_events WHERE action = 'token_revoked' AND subject_id = (SELECT token_id FROM oauth_connections WHERE client_id = ${clientId})`;
    expect(audit!.detail.reason).toBe("refresh token replayed");
  });

  test("an expired access token gets 401; revoked on /agents, the connection's refresh token is refused too", async () => {
    const clientId = await newClient();
    const { code, verifier } = await approve(clientId, staff);
    const res = await token({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    const [access, refresh] = [f.secret(res.body.access_token as string), f.secret(res.body.refresh_token as string)];
    await f.database.client`UPDATE agent_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${hashToken(access)}`;
    const expired = await mcp(access);
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain("resource_metadata=");
    const renewed = await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: refresh });
    expect(renewed.status).toBe(200);
    const access2 = f.secret(renewed.body.access_token as string);
    f.secret(renewed.body.refresh_token as string);
    expect((await mcp(access2)).status).toBe(200);
    const [{ name }] = (await f.database.client<{ name: string }[]>`SELECT name FROM agent_tokens WHERE token_hash = ${hashToken(access2)}`) as unknown as [{ name: string }];
    expect(await revokeAgentToken(f.database.db, name)).toBe(true);
    expect((await mcp(access2)).status).toBe(401);
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: renewed.body.refresh_token as string }), "invalid_grant");
  });

  test("scopes: supervise only for a supervisor (a staff member's approval of it buys nothing); read-only is an observer", async () => {
    const clientId = await newClient();
    const asStaff = await approve(clientId, staff, ["board:supervise"]);
    expectOAuthError(await token({ grant_type: "authorization_code", client_id: clientId, code: asStaff.code, code_verifier: asStaff.verifier, redirect_uri: REDIRECT }), "invalid_scope");
    const asSupervisor = await approve(clientId, supervisor, ["board:supervise"]);
    const sup = await token({ grant_type: "authorization_code", client_id: clientId, code: asSupervisor.code, code_verifier: asSupervisor.verifier, redirect_uri: REDIRECT });
    expect(sup.body.scope).toBe("board:supervise");
    f.secret(sup.body.refresh_token as string);
    const [{ role }] = (await f.database.client<{ role: string }[]>`SELECT role FROM agent_tokens WHERE token_hash = ${hashToken(f.secret(sup.body.access_token as string))}`) as unknown as [{ role: string }];
    expect(role).toBe("supervisor");
    const reader = await approve(clientId, staff, ["tasks:read"]);
    const read = await token({ grant_type: "authorization_code", client_id: clientId, code: reader.code, code_verifier: reader.verifier, redirect_uri: REDIRECT });
    f.secret(read.body.refresh_token as string);
    const listed = await mcp(f.secret(read.body.access_token as string));
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(7);
  });
});

describe("revocation by the client (RFC 7009)", () => {
  const revoke = (params: Record<string, string>) =>
    fetch(`${f.server.url}/api/oauth/revoke`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(params).toString() });

  test("a refresh or access token handed back ends the connection; another client's, or a made-up one, changes nothing and is answered the same", async () => {
    const clientId = await newClient();
    const other = await newClient("Other");
    const connect = async () => {
      const { code, verifier } = await approve(clientId, staff);
      const res = await token({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
      return { access: f.secret(res.body.access_token as string), refresh: f.secret(res.body.refresh_token as string) };
    };
    const a = await connect();
    expect((await revoke({ token: a.refresh, client_id: other })).status).toBe(200);
    expect((await revoke({ token: "cbr_made-up", client_id: clientId })).status).toBe(200);
    expect((await mcp(a.access)).status).toBe(200);
    const done = await revoke({ token: a.refresh, client_id: clientId, token_type_hint: "refresh_token" });
    expect(done.status).toBe(200);
    expect(await done.text()).toBe("");
    expect((await mcp(a.access)).status).toBe(401);
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: a.refresh }), "invalid_grant");
    const b = await connect();
    expect((await revoke({ token: b.access, client_id: clientId })).status).toBe(200);
    expect((await mcp(b.access)).status).toBe(401);
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: b.refresh }), "invalid_grant");
    const unknown = await fetch(`${f.server.url}/api/oauth/revoke`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: b.access, client_id: "cbc_unknownunknownunknown" }).toString(),
    }).then(json);
    expectOAuthError(unknown, "invalid_client", 401);
  });
});

describe("the person's standing", () => {
  const asOperator = <S extends z.ZodType, O>(op: Operation<S, O>) => (input: z.input<S>) =>
    f.database.db.transaction((tx) => op.run(tx, input as z.infer<S>, { actor: SYSTEM_ACTOR, standing: "operator", clock: databaseClock }));

  test("a supervisor demoted: their supervise connection is an agent's at once; disabled: every connection of theirs ends at once", async () => {
    const lead = await f.person("oauth-lead@example.com", "supervisor");
    const clientId = await newClient();
    const { code, verifier } = await approve(clientId, lead, ["board:supervise"]);
    const res = await token({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    const [access, refresh] = [f.secret(res.body.access_token as string), f.secret(res.body.refresh_token as string)];
    const roleNow = async () => ((await f.database.client`SELECT role FROM agent_tokens WHERE token_hash = ${hashToken(access)}`)[0] as { role: string }).role;
    expect(await roleNow()).toBe("supervisor");
    expect(await asOperator(people.setPersonRole)({ actorId: lead.actorId, role: "staff" })).toMatchObject({ ok: true });
    expect(await roleNow()).toBe("agent");
    expect((await mcp(access)).status).toBe(200);
    expect(await asOperator(people.setPersonDisabled)({ actorId: lead.actorId, disabled: true })).toMatchObject({ ok: true });
    expect((await mcp(access)).status).toBe(401);
    expectOAuthError(await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: refresh }), "invalid_grant");
  });
});
