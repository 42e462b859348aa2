// DNS rebinding protection for /api/mcp (MCP specification, Streamable HTTP transport:
// servers MUST validate the Origin header). A page on evil.example whose name is made to
// resolve to this server can make a browser send requests here with `Host: evil.example`
// and `Origin: http://evil.example`; both are checked against the names this deployment
// answers to, and anything else is refused with 403 before authentication runs.
//
// The allowed names:
// - the host of the app's own URL, NEXTAUTH_URL (and AUTH_URL, next-auth's newer name),
//   port included; when that host is a loopback name (localhost, 127.0.0.1, [::1]) the
//   other loopback names on the same port too;
// - each entry of MCP_ALLOWED_HOSTS (comma- or space-separated `name` or `name:port`;
//   a name without a port is allowed on any port) — the public names of a deployment
//   behind a proxy, for instance;
// - with none of these set, the loopback names on any port (a local server).
// Behind a trusted proxy (TRUST_PROXY=1) the Host checked is X-Forwarded-Host when sent.
// A request without an Origin (a CLI or desktop client, not a browser) is checked on its
// Host alone; `Origin: null` (a sandboxed page, a file) is refused.

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

interface HostName {
  hostname: string;
  /** "" for the scheme's default port; null: any port. */
  port: string | null;
}

/** `name` or `name:port` as a Host header carries it; null when it is anything else. */
function parseHost(value: string): HostName | null {
  const trimmed = value.trim();
  if (!trimmed || /[/?#@\\\s]/.test(trimmed)) return null;
  try {
    const url = new URL(`http://${trimmed}`);
    return { hostname: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return null;
  }
}

function fromUrl(value: string | undefined): HostName[] {
  if (!value) return [];
  try {
    const url = new URL(value);
    const own = { hostname: url.hostname.toLowerCase(), port: url.port };
    return LOOPBACK.includes(own.hostname) ? LOOPBACK.map((hostname) => ({ hostname, port: own.port })) : [own];
  } catch {
    return [];
  }
}

export function allowedHosts(env: Record<string, string | undefined> = process.env): HostName[] {
  const listed = (env.MCP_ALLOWED_HOSTS ?? "").split(/[\s,]+/).filter(Boolean).flatMap((entry) => {
    const parsed = parseHost(entry);
    if (!parsed) return [];
    return [{ hostname: parsed.hostname, port: /:\d+$/.test(entry.trim()) ? parsed.port : null }];
  });
  const own = [...fromUrl(env.NEXTAUTH_URL), ...fromUrl(env.AUTH_URL)];
  if (own.length === 0 && listed.length === 0) return LOOPBACK.map((hostname) => ({ hostname, port: null }));
  return [...own, ...listed];
}

const matches = (name: HostName, allowed: HostName[]) =>
  allowed.some((a) => a.hostname === name.hostname && (a.port === null || a.port === name.port));

/** Why a request's Host or Origin is refused, or null when both are the app's own. */
export function hostProblem(headers: Headers, env: Record<string, string | undefined> = process.env): string | null {
  const allowed = allowedHosts(env);
  const forwarded = env.TRUST_PROXY === "1" ? headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  const host = parseHost(forwarded || (headers.get("host") ?? ""));
  if (!host || !matches(host, allowed)) return "This server does not answer to that Host (DNS rebinding protection)";
  const origin = headers.get("origin");
  if (origin === null) return null;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return "The request's Origin is not a URL";
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !matches({ hostname: url.hostname.toLowerCase(), port: url.port }, allowed)) {
    return "Requests from that Origin are refused (DNS rebinding protection)";
  }
  return null;
}
