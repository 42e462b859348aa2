// The client's one way to the server: a route of the registry, filled and sent, its answer
// read (JSON, 204, or an accepted error status) or turned into a ClaimboardApiError.

import { INSTANCE_HEADER } from "@/lib/http/endpoints";
import { ClaimboardApiError, toApiError } from "./errors";
import { clientRoutes, type EndpointOf, type RouteName } from "./routes";
import type { Answer } from "./types";

/** Where and as whom a ClaimboardClient sends (its options, resolved). */
interface Connection {
  base: string;
  token?: string;
  fetchImpl: typeof fetch;
  timeoutMs: number;
  instance?: string;
}

type QueryString = Record<string, string | number | undefined>;

export interface RequestOptions {
  id?: string;
  dep?: string;
  effectId?: string;
  questionId?: string;
  query?: QueryString;
  body?: unknown;
  accept?: number[];
  timeoutMs?: number;
}

/** host:pid where a process exists (Node), none elsewhere. */
export function defaultInstance(): string | undefined {
  const proc = (globalThis as { process?: { pid?: number; env?: Record<string, string | undefined> } }).process;
  if (!proc?.pid) return undefined;
  const host = proc.env?.HOSTNAME ?? proc.env?.COMPUTERNAME ?? "host";
  return `${host}:${proc.pid}`.replace(/[^\x21-\x7e]/g, "_").slice(0, 200);
}

export async function request<R extends RouteName>(connection: Connection, route: R, options: RequestOptions): Promise<Answer<EndpointOf<R>>> {
  const { method, path } = clientRoutes[route];
  const filled = path
    .replace("{effectId}", encodeURIComponent(options.effectId ?? ""))
    .replace("{questionId}", encodeURIComponent(options.questionId ?? ""))
    .replace("{dep}", encodeURIComponent(options.dep ?? ""))
    .replace(/\{\w+\}/, encodeURIComponent(options.id ?? ""));
  const url = new URL(connection.base + filled);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = { Accept: "application/json" };
  if (connection.token) headers.Authorization = `Bearer ${connection.token}`;
  if (connection.instance) headers[INSTANCE_HEADER] = connection.instance;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";

  let response: Response;
  try {
    response = await connection.fetchImpl(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(Math.max(connection.timeoutMs, options.timeoutMs ?? 0)),
    });
  } catch (cause) {
    // undici says "fetch failed" and keeps the reason (ECONNREFUSED, …) one level down.
    const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
    const reason = inner instanceof Error ? inner.message : String(inner);
    throw new ClaimboardApiError({ status: 0, code: "network_error", message: `${method} ${url.pathname}: ${reason}`, cause });
  }
  if (response.status === 204) return null as Answer<EndpointOf<R>>;
  const text = await response.text().catch(() => "");
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (response.ok || options.accept?.includes(response.status)) {
    if (json === undefined) {
      throw new ClaimboardApiError({ status: response.status, code: "unexpected_response", message: `${method} ${url.pathname}: the answer is not JSON` });
    }
    return json as Answer<EndpointOf<R>>;
  }
  throw toApiError(response, json, `${method} ${url.pathname}`);
}
