import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A minimal OpenID Connect provider for the single sign-on test: discovery, an authorize
// endpoint that signs in whoever the test says (no login page), a token endpoint that checks
// the client secret and PKCE and returns an RS256 id_token, and the JWKS to verify it. Just
// enough of the protocol for next-auth (openid-client) to run its real code path against.

export interface Idp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * The identity the next authorization signs in as. `email_verified` is true unless given
   * (as a provider says for an address it checked); give it as false, or as undefined to
   * leave the claim out.
   */
  signInAs(identity: Identity): void;
  /** Token requests that were refused (a wrong secret or PKCE verifier), for assertions. */
  refusals: string[];
  close(): Promise<void>;
}

export interface Identity {
  sub: string;
  email: string;
  name: string;
  email_verified?: boolean;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

export async function startIdp(): Promise<Idp> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomBytes(8).toString("hex");
  const clientId = "claimboard-e2e";
  const clientSecret = randomBytes(16).toString("hex");
  let identity: Identity = { sub: "nobody", email: "nobody@example.com", name: "Nobody", email_verified: true };
  const codes = new Map<string, { challenge: string; redirectUri: string; identity: typeof identity }>();
  const refusals: string[] = [];
  let issuer = "";

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/jwks") return json(200, { keys: [{ ...publicKey.export({ format: "jwk" }), kid, use: "sig", alg: "RS256" }] });
    if (url.pathname === "/authorize") {
      const redirectUri = url.searchParams.get("redirect_uri") ?? "";
      if (url.searchParams.get("client_id") !== clientId || url.searchParams.get("code_challenge_method") !== "S256") {
        return json(400, { error: "invalid_request" });
      }
      const code = randomBytes(16).toString("hex");
      codes.set(code, { challenge: url.searchParams.get("code_challenge") ?? "", redirectUri, identity });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = await readForm(req);
      const basic = req.headers.authorization?.startsWith("Basic ")
        ? Buffer.from(req.headers.authorization.slice(6), "base64").toString().split(":").map(decodeURIComponent)
        : [form.get("client_id"), form.get("client_secret")];
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const problem =
        basic[0] !== clientId || basic[1] !== clientSecret ? "client authentication"
        : !grant ? "unknown code"
        : b64url(createHash("sha256").update(verifier).digest()) !== grant.challenge ? "PKCE verifier"
        : grant.redirectUri !== form.get("redirect_uri") ? "redirect_uri"
        : null;
      if (problem || !grant) {
        refusals.push(problem ?? "unknown code");
        return json(400, { error: "invalid_grant" });
      }
      const now = Math.floor(Date.now() / 1000);
      const header = b64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid }));
      const payload = b64url(JSON.stringify({ iss: issuer, aud: clientId, iat: now, exp: now + 300, ...grant.identity }));
      const signature = b64url(sign("RSA-SHA256", Buffer.from(`${header}.${payload}`), privateKey));
      return json(200, { access_token: randomBytes(16).toString("hex"), token_type: "Bearer", expires_in: 300, id_token: `${header}.${payload}.${signature}` });
    }
    json(404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (who) => void (identity = "email_verified" in who ? who : { ...who, email_verified: true }),
    refusals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
