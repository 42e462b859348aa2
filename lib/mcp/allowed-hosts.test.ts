import { expect, test } from "vitest";
import { hostProblem } from "./allowed-hosts";

// Which Host and Origin /api/mcp answers (the HTTP side is test/mcp/host-origin.test.ts).

const check = (env: Record<string, string>, headers: Record<string, string>) => hostProblem(new Headers(headers), env);

test("nothing configured: the loopback names on any port, nothing else", () => {
  for (const host of ["localhost", "localhost:3000", "127.0.0.1:9", "[::1]:3000"]) expect(check({}, { host }), host).toBeNull();
  for (const host of ["evil.example", "evil.example:3000", "", "localhost.evil.example", "user@localhost", "localhost/x"]) {
    expect(check({}, { host }), host).not.toBeNull();
  }
  expect(check({}, { host: "localhost:3000", origin: "http://evil.example" })).not.toBeNull();
});

test("NEXTAUTH_URL / AUTH_URL: that host and port; a public name gets no loopback aliases", () => {
  const env = { NEXTAUTH_URL: "https://board.example.com" };
  expect(check(env, { host: "board.example.com", origin: "https://board.example.com" })).toBeNull();
  expect(check(env, { host: "board.example.com:8443" })).not.toBeNull();
  expect(check(env, { host: "localhost" })).not.toBeNull();
  expect(check({ AUTH_URL: "http://localhost:4000" }, { host: "127.0.0.1:4000" })).toBeNull();
  expect(check({ AUTH_URL: "http://localhost:4000" }, { host: "127.0.0.1:4001" })).not.toBeNull();
  expect(check(env, { host: "board.example.com", origin: "ftp://board.example.com" })).not.toBeNull();
  expect(check(env, { host: "board.example.com", origin: "null" })).not.toBeNull();
});

test("X-Forwarded-Host counts only behind a trusted proxy", () => {
  const env = { NEXTAUTH_URL: "https://board.example.com" };
  expect(check(env, { host: "10.0.0.5:3000", "x-forwarded-host": "board.example.com" })).not.toBeNull();
  expect(check({ ...env, TRUST_PROXY: "1" }, { host: "10.0.0.5:3000", "x-forwarded-host": "board.example.com" })).toBeNull();
  expect(check({ ...env, TRUST_PROXY: "1" }, { host: "board.example.com", "x-forwarded-host": "evil.example" })).not.toBeNull();
});
