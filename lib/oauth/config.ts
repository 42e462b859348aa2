import type { TokenRole } from "@/db/schema";

// The names and lifetimes of Claimboard's OAuth 2.1 authorization server for /api/mcp
// (docs/mcp.md, "Signing in by OAuth"). The issuer is the app's own public URL.

/** What a connection may do, and the token role each scope gives (the highest granted wins). */
export const SCOPES = {
  "tasks:read": { role: "observer", text: "read the board: tasks, their history and readiness" },
  "tasks:work": { role: "agent", text: "work tasks as an agent: claim, report progress, complete, fail, create and comment" },
  "board:supervise": { role: "supervisor", text: "supervise: everything an agent may, and the supervisor's acts (offered to supervisors only)" },
} as const satisfies Record<string, { role: TokenRole; text: string }>;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];
/** Asked for nothing: agent work. */
export const DEFAULT_SCOPE: Scope[] = ["tasks:work"];

export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;
export const CODE_SECONDS = 120;

function configuredOrigin(): string | null {
  for (const value of [process.env.NEXTAUTH_URL, process.env.AUTH_URL]) {
    if (!value) continue;
    try {
      return new URL(value).origin;
    } catch {
      // not a URL: the next candidate
    }
  }
  return null;
}

/** The app's public origin: NEXTAUTH_URL (or AUTH_URL) as configured, else the request's own. */
export function issuer(request: Request): string {
  return configuredOrigin() ?? new URL(request.url).origin;
}

/** The same, in a page (which has the request's headers, not the request). */
export function issuerOf(headers: Headers): string {
  return configuredOrigin() ?? `${headers.get("x-forwarded-proto") === "https" ? "https" : "http"}://${headers.get("host") ?? "localhost"}`;
}

export const mcpResource = (base: string) => `${base}/api/mcp`;
/** RFC 9728 §3.1: the metadata of resource https://host/api/mcp is at /.well-known/oauth-protected-resource/api/mcp. */
export const resourceMetadataUrl = (base: string) => `${base}/.well-known/oauth-protected-resource/api/mcp`;

export function roleOf(scopes: readonly Scope[]): TokenRole {
  if (scopes.includes("board:supervise")) return "supervisor";
  if (scopes.includes("tasks:work")) return "agent";
  return "observer";
}

/** A scope string (space-separated) as scopes; null when it names one this server does not have. */
export function parseScope(value: string | null | undefined): Scope[] | null {
  if (value === null || value === undefined || value.trim() === "") return [...DEFAULT_SCOPE];
  const names = [...new Set(value.trim().split(/ +/))];
  return names.every((name): name is Scope => (SCOPE_NAMES as string[]).includes(name)) ? names : null;
}
