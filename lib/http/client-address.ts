/** No trusted proxy says where the caller is: every such caller shares this key. */
export const UNKNOWN_ADDRESS = "direct";

/**
 * The address a caller is throttled by. Route handlers cannot see the socket's address, and
 * clients can forge X-Forwarded-For, so it is trusted only when TRUST_PROXY=1 says a proxy
 * in front sets it: its last entry, else X-Real-IP. `header` reads one request header.
 */
export function clientAddress(header: (name: string) => unknown): string {
  if (process.env.TRUST_PROXY !== "1") return UNKNOWN_ADDRESS;
  const forwarded = header("x-forwarded-for");
  const realIp = header("x-real-ip");
  const last = typeof forwarded === "string" ? forwarded.split(",").at(-1)?.trim() : undefined;
  return last || (typeof realIp === "string" && realIp) || UNKNOWN_ADDRESS;
}
