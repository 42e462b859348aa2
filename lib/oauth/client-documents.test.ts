import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startDocumentServer, type DocumentServer } from "@/test/mcp/document-server";
import { clientIdUrlProblem, forgetDocuments, readDocument, resolveDocumentClient } from "./client-documents";
import { freshSeconds, MAX_CACHE_SECONDS, MAX_DOCUMENT_BYTES } from "./document-fetch";

// Client ID Metadata Documents, fetched from a local https server (a self-signed
// certificate, passed as `ca`): the address rules, the bounds, the document's own rules and
// the cache. The whole flow through the consent page is test/mcp/oauth-client-documents.test.ts.

let docs: DocumentServer;
const REDIRECT = "http://127.0.0.1:33418/callback";
const document = (url: string, extra: Record<string, unknown> = {}) => ({
  client_id: url, client_name: "Doc client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", ...extra,
});
/** Serves a good document at `pathname` (with `extra` fields and headers); its URL. */
const good = (pathname: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const url = `${docs.origin}${pathname}`;
  return docs.serve(pathname, { body: document(url, extra), headers });
};
const resolve = (url: string, timeoutMs?: number) => resolveDocumentClient(url, { ca: docs.ca, timeoutMs });
const refusal = async (url: string, timeoutMs?: number) => {
  const resolved = await resolve(url, timeoutMs);
  expect(resolved.ok).toBe(false);
  if (resolved.ok) throw new Error("resolved");
  expect(resolved.failure.error).toBe("invalid_client");
  return resolved.failure.description;
};

beforeAll(async () => {
  docs = await startDocumentServer();
});
afterAll(async () => {
  await docs?.close();
});
afterEach(() => {
  delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
  forgetDocuments();
});

describe("with the loopback allowance tests use", () => {
  const allow = () => (process.env.WEBHOOKS_ALLOW_LOOPBACK = "1");

  test("a good document: the client it names, with the host that serves it", async () => {
    allow();
    const url = good("/clients/good.json");
    const resolved = await resolve(url);
    expect(resolved).toMatchObject({ ok: true, client: { id: url, name: "Doc client", redirectUris: [REDIRECT], host: new URL(url).host } });
  });

  test("a document whose client_id is not its URL, with a secret, or a secret's auth method, is refused", async () => {
    allow();
    const other = docs.serve("/clients/other.json", { body: document("https://elsewhere.example/client.json") });
    expect(await refusal(other)).toMatch(/client_id must be exactly the URL/);
    expect(await refusal(good("/clients/secret.json", { client_secret: "s" }))).toMatch(/secret/);
    expect(await refusal(good("/clients/basic.json", { token_endpoint_auth_method: "client_secret_basic" }))).toMatch(/must be none/);
    expect(await refusal(good("/clients/js.json", { redirect_uris: ["javascript:alert(1)"] }))).toMatch(/javascript/);
    expect(await refusal(docs.serve("/clients/list.json", { body: [1] }))).toMatch(/not a JSON object/);
    expect(await refusal(docs.serve("/clients/text.json", { body: "hello" }))).toMatch(/not JSON/);
  });

  test("bounded: a document over 5 kB, a slow one, a redirect and an error status are refused", async () => {
    allow();
    expect(await refusal(good("/clients/big.json", { padding: "x".repeat(MAX_DOCUMENT_BYTES) }))).toMatch(/larger than 5120 bytes/);
    // A chunked answer with no Content-Length is cut off while it arrives.
    expect(await refusal(good("/clients/big-chunked.json", { padding: "x".repeat(MAX_DOCUMENT_BYTES) }, { "transfer-encoding": "chunked" }))).toMatch(/larger/);
    const slowPath = "/clients/slow.json";
    docs.serve(slowPath, { body: document(`${docs.origin}${slowPath}`), delayMs: 2_000 });
    const started = Date.now();
    expect(await refusal(`${docs.origin}${slowPath}`, 300)).toMatch(/did not arrive within 0.3 s/);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await refusal(docs.serve("/clients/moved.json", { status: 302, headers: { location: "/clients/good.json" }, body: "" }))).toMatch(/HTTP 302 \(redirects are not followed\)/);
    expect(await refusal(`${docs.origin}/clients/missing.json`)).toMatch(/HTTP 404/);
  });

  test("cached as long as its Cache-Control says, and not at all when it says no-store", async () => {
    allow();
    const cached = good("/clients/cached.json", {}, { "cache-control": "public, max-age=600" });
    await resolve(cached);
    await resolve(cached);
    expect(docs.hits.get("/clients/cached.json")).toBe(1);
    const uncached = good("/clients/uncached.json", {}, { "cache-control": "no-store" });
    await resolve(uncached);
    await resolve(uncached);
    expect(docs.hits.get("/clients/uncached.json")).toBe(2);
    // A refused document is not kept: fixed, it works at once.
    const fixedPath = "/clients/fixed.json";
    docs.serve(fixedPath, { body: document("https://wrong.example/x"), headers: { "cache-control": "max-age=600" } });
    await refusal(`${docs.origin}${fixedPath}`);
    good(fixedPath, {}, { "cache-control": "max-age=600" });
    expect((await resolve(`${docs.origin}${fixedPath}`)).ok).toBe(true);
  });
});

test("without the allowance, a document on a loopback or private address is never fetched", async () => {
  const url = good("/clients/loopback.json");
  const before = docs.hits.get("/clients/loopback.json") ?? 0;
  expect(await refusal(url)).toMatch(/loopback address/);
  expect(docs.hits.get("/clients/loopback.json") ?? 0).toBe(before);
  process.env.WEBHOOKS_ALLOW_LOOPBACK = "1";
  // Tests' TEST-NET-2 allowance for webhooks is no allowance to connect: refused at once, no packet sent.
  process.env.WEBHOOKS_ALLOW_TEST_NET = "1";
  expect(await refusal("https://198.51.100.7/client.json", 10_000)).toMatch(/198\.51\.100\.7 is a private, link-local, reserved/);
  delete process.env.WEBHOOKS_ALLOW_TEST_NET;
  for (const address of ["10.0.0.8", "192.168.1.1", "169.254.169.254", "[fd00::1]", "[::ffff:a00:1]"]) {
    expect(await refusal(`https://${address}/client.json`)).toMatch(/not allowed/);
  }
});

test("a client_id URL: https, a path, no fragment, credentials or dot segments, written as the parser writes it", () => {
  expect(clientIdUrlProblem("https://app.example/client.json")).toBeNull();
  expect(clientIdUrlProblem("http://app.example/client.json")).toMatch(/must be https/);
  expect(clientIdUrlProblem("https://app.example/")).toMatch(/must have a path/);
  expect(clientIdUrlProblem("https://app.example")).toMatch(/must have a path/);
  expect(clientIdUrlProblem("https://app.example/c.json#x")).toMatch(/fragment/);
  expect(clientIdUrlProblem("https://u:p@app.example/c.json")).toMatch(/credentials/);
  expect(clientIdUrlProblem("https://app.example/a/../c.json")).toMatch(/segments/);
  expect(clientIdUrlProblem("https://APP.example/c.json")).toMatch(/written as https:\/\/app.example\/c.json/);
  expect(clientIdUrlProblem("https://app.example:443/c.json")).toMatch(/written as/);
});

test("readDocument applies registration's rules to the document", () => {
  const url = "https://app.example/c.json";
  expect(readDocument(url, document(url)).ok).toBe(true);
  expect(readDocument(url, document(url, { redirect_uris: [] })).ok).toBe(false);
  expect(readDocument(url, document(url, { grant_types: ["client_credentials"] })).ok).toBe(false);
  expect(readDocument(url, document(url, { redirect_uris: ["http://evil.example/cb"] })).ok).toBe(false);
});

test("freshSeconds reads Cache-Control, then Expires, and caps at a day", () => {
  expect(freshSeconds({})).toBe(0);
  expect(freshSeconds({ cacheControl: "max-age=60" })).toBe(60);
  expect(freshSeconds({ cacheControl: "max-age=60, s-maxage=120" })).toBe(120);
  expect(freshSeconds({ cacheControl: "no-cache, max-age=60" })).toBe(0);
  expect(freshSeconds({ cacheControl: "max-age=99999999" })).toBe(MAX_CACHE_SECONDS);
  expect(freshSeconds({ expires: "Mon, 07 Dec 2026 10:10:00 GMT", date: "Mon, 07 Dec 2026 10:00:00 GMT" })).toBe(600);
  expect(freshSeconds({ cacheControl: "max-age=-1" })).toBe(0);
});
