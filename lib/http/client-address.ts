/** No trusted proxy says where the caller is: every such caller shares this key. */
export const UNKNOWN_ADDRESS = "direct";

/**
 * The address a caller is throttled by. Route handlers cannot see the socket's address, and
 * clients can forge X-Forwarded-For, so it is trusted only when TRUST_PROXY=1 says a proxy
 * in front sets it: its last entry, else X-Real-IP. `header` reads one request header.
 */
export function clientAddress(header: (name: string) => unknown): string {
  if (process.env.TRUST_PROXY !== "1") {
    if (!warned && typeof header("x-forwarded-for") === "string") warnUntrustedProxy();
    return UNKNOWN_ADDRESS;
  }
  const forwarded = header("x-forwarded-for");
  const realIp = header("x-real-ip");
  const last = typeof forwarded === "string" ? forwarded.split(",").at(-1)?.trim() : undefined;
  return last || (typeof realIp === "string" && realIp) || UNKNOWN_ADDRESS;
}

let warned = false;

/**
 * Said once per process, in the server's output: a request came through something that sets
 * X-Forwarded-For, but TRUST_PROXY is not set, so every caller without a valid token is keyed
 * alike (lib/http/failed-auth.ts) and sign-in's per-address window is off.
 */
function warnUntrustedProxy() {
  warned = true;
  console.warn("[claimboard] requests carry X-Forwarded-For but TRUST_PROXY is not set: callers cannot be told apart by address. If a proxy you run sets that header, start with TRUST_PROXY=1 (docs/security.md).");
}
