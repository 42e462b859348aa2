import { BlockList, isIP } from "node:net";
import { lookup } from "node:dns/promises";

// Where a webhook may point (docs/contract.md#notifications): https, or http to loopback when
// WEBHOOKS_ALLOW_LOOPBACK=1 (development, tests); never a private, link-local or other
// non-public address, checked when it is registered and again for every connection (a name
// that resolved to a public address then may resolve elsewhere later: DNS rebinding).

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

// Every block of IANA's IPv4 and IPv6 Special-Purpose Address Registries, whether or not the
// registry calls it globally reachable (a webhook has no business with AS112, AMT or a relay
// anycast), plus multicast and the reserved 240/4. A receiver is an ordinary unicast host.
const nonPublic = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.31.196.0", 24], ["192.52.193.0", 24], ["192.88.99.0", 24],
  ["192.168.0.0", 16], ["192.175.48.0", 24], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) nonPublic.addSubnet(net, bits, "ipv4");
// IPv6 that carries or reaches an IPv4 address a router may translate: IPv4-compatible
// (::a.b.c.d), IPv4-mapped (::ffff:0:0/96: see addressRefusal), NAT64 (64:ff9b::/96 and the
// local-use /48), 6to4 (2002::/16) and Teredo (in 2001::/23) — a private IPv4 inside any of them
// is a private address reached another way. Then the rest of the registry: discard-only,
// IETF protocol assignments (2001::/23: benchmarking, ORCHID, AMT, AS112), documentation
// (2001:db8::/32, 3fff::/20), AS112 (2620:4f:8000::/48), SRv6 SIDs (5f00::/16), unique-local,
// link-local, the deprecated site-local (fec0::/10) and multicast.
for (const [net, bits] of [
  ["::", 96], ["64:ff9b::", 96], ["64:ff9b:1::", 48], ["100::", 64], ["2001::", 23], ["2001:db8::", 32],
  ["2002::", 16], ["2620:4f:8000::", 48], ["3fff::", 20], ["5f00::", 16], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8],
] as const) nonPublic.addSubnet(net, bits, "ipv6");

export const loopbackAllowed = () => process.env.WEBHOOKS_ALLOW_LOOPBACK === "1";

// Tests register webhooks that must never send a packet off the machine: with
// WEBHOOKS_ALLOW_TEST_NET=1 (test servers only) an address of TEST-NET-2 (198.51.100.0/24, RFC
// 5737) may be registered, and the sender still refuses to connect to it (addressRefusal, every
// connection), so such a webhook's deliveries fail here without any traffic.
const testNet = new BlockList();
testNet.addSubnet("198.51.100.0", 24, "ipv4");
const testNetAllowed = (address: string) => process.env.WEBHOOKS_ALLOW_TEST_NET === "1" && isIP(address) === 4 && testNet.check(address, "ipv4");

/** IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it maps. */
function plain(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: "ipv4" };
  return { address, family: isIP(address) === 6 ? "ipv6" : "ipv4" };
}

/** Why a connection to this resolved address is refused, or null when it may go. */
export function addressRefusal(address: string): string | null {
  const { address: a, family } = plain(address);
  // ::ffff:0:0/96 spelt in hex (how a URL writes it): refused whole. Not in the block list,
  // since BlockList matches every IPv4 address against a mapped subnet.
  if (family === "ipv6" && /^(0{0,4}:){0,5}:?ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(a) && a.includes("::")) {
    return `${address} is an IPv4-mapped address: private, link-local, reserved or other special-purpose as a webhook's`;
  }
  if (loopback.check(a, family)) return loopbackAllowed() ? null : `${address} is a loopback address (allowed only with WEBHOOKS_ALLOW_LOOPBACK=1)`;
  if (nonPublic.check(a, family)) return `${address} is a private, link-local, reserved or other special-purpose address`;
  return null;
}

/** Why the URL cannot be a webhook's, or null. Resolves its host name once. */
export async function urlRefusal(raw: string): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "url is not a valid URL";
  }
  if (url.username || url.password) return "url must not carry credentials";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "url must be https (http only to loopback, with WEBHOOKS_ALLOW_LOOPBACK=1)";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((r) => r.address);
  } catch {
    return `url's host ${host} does not resolve`;
  }
  const refusals = addresses.filter((a) => !testNetAllowed(a)).map(addressRefusal).filter((r): r is string => r !== null);
  if (refusals.length > 0) return `url points to an address that is not allowed: ${refusals[0]}`;
  if (url.protocol === "https:") return null;
  const toLoopback = addresses.every((a) => loopback.check(plain(a).address, plain(a).family));
  return toLoopback ? null : "url must be https (http only to loopback, with WEBHOOKS_ALLOW_LOOPBACK=1)";
}
