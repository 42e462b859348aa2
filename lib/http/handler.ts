import "server-only";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getDatabase } from "@/db";
import { withinDeadline } from "@/lib/deadline";
import { currentUser } from "@/lib/auth/session";
import { authenticateAndCount, bearerToken, type TokenPrincipal } from "@/lib/auth/tokens";
import { authenticateClaimToken } from "@/lib/auth/claim-tokens";
import { classifyDatabaseError, perform, type Operation } from "@/lib/tasks";
import { CLAIM_TOKEN_PREFIX, safeParse, validationError, article, tokenStanding, type Result, instanceHeader } from "@/lib/tasks/model";
import { claimBodyRefusal, claimRefusal } from "./claim-scope";
import { rolesOf, runsAsPublished } from "./access";
import { readJsonBody } from "./body";
import { INSTANCE_HEADER, type Endpoint } from "./endpoints";
import { failedAuthKey, INVALID_TOKEN_CHALLENGE } from "./failed-auth";
import { errorResponse } from "./errors";
import { limits, take, tokenKey } from "./rate-limit";
import { withTransportSecurity } from "./transport";

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;

export interface Call<E extends Endpoint> {
  request: Request;
  principal: TokenPrincipal | null;
  body: Infer<E["body"]>;
  query: Infer<E["query"]>;
  params: Record<string, string>;
  db: Db;
  /** Runs an engine operation as the caller, in its token's standing (the engine decides who may). */
  run<S extends z.ZodType, O>(op: Operation<S, O>, input: unknown): Promise<Result<O>>;
}

type RouteContext = { params: Promise<Record<string, string | string[]>> };

/** A signed-in person (role re-read from the database) as a read-only caller of a session endpoint: an observer. */
async function sessionPrincipal(): Promise<TokenPrincipal | null> {
  const user = await currentUser();
  return user ? { tokenId: `session:${user.actor.id}`, role: "observer", actor: user.actor } : null;
}

/**
 * Requests built inside this process for a caller already authenticated and counted (the
 * MCP endpoint's tool calls, app/api/mcp): a symbol-keyed property no HTTP input can set.
 * Symbol.for, so a second copy of this module in another route bundle sees it too.
 */
const IN_PROCESS_CALLER = Symbol.for("claimboard.inProcessCaller");

/** Marks `request` as made in this process on behalf of `principal`; the role check still applies. */
export function asInProcessCall(request: Request, principal: TokenPrincipal): Request {
  Object.defineProperty(request, IN_PROCESS_CALLER, { value: principal });
  return request;
}

/**
 * The caller of an endpoint, or the refusal to send: the token (or session) is
 * authenticated, failures throttled per address (a valid token is never refused for what
 * others sent), the token rate-limited, and its role checked against the endpoint's.
 */
export async function authorize(
  endpoint: Endpoint,
  request: Request,
  params: Record<string, string> = {},
): Promise<{ principal: TokenPrincipal } | { refusal: Response }> {
  const inProcess = (request as unknown as Record<symbol, TokenPrincipal | undefined>)[IN_PROCESS_CALLER];
  let principal = inProcess ?? null;
  if (!principal) {
    const { perToken, failedAuth } = limits();
    const { db } = getDatabase();
    const bearer = bearerToken(request.headers.get("authorization"));
    let wait = 0;
    if (bearer?.startsWith(CLAIM_TOKEN_PREFIX)) {
      const counted = await authenticateClaimToken(db, bearer, perToken);
      if (counted) ({ principal, wait } = counted);
    } else if (bearer || !endpoint.session) {
      const counted = await authenticateAndCount(db, bearer, perToken);
      if (counted) ({ principal, wait } = counted);
    } else {
      principal = await sessionPrincipal();
      if (principal) wait = await take(db, tokenKey(principal.tokenId), perToken);
    }
    if (!principal) {
      const bucket = await failedAuthKey(db, bearer, (name) => request.headers.get(name));
      const refused = bucket ? await take(db, bucket.key, bucket.limit === "perToken" ? perToken : failedAuth) : 0;
      if (refused > 0) {
        const response = errorResponse({ code: "rate_limited", message: "Too many failed authentications; slow down", retryAfterSeconds: refused });
        response.headers.set("WWW-Authenticate", INVALID_TOKEN_CHALLENGE);
        return { refusal: response };
      }
      const response = errorResponse({ code: "unauthorized", message: "A valid bearer token is required (Authorization: Bearer cb_…)" });
      response.headers.set("WWW-Authenticate", 'Bearer realm="claimboard"');
      return { refusal: response };
    }
    if (wait > 0) return { refusal: errorResponse({ code: "rate_limited", message: "Rate limit exceeded for this token", retryAfterSeconds: wait }) };
  }
  // A claim token is refused by its scope before its agent's role is consulted: it may call nothing else.
  const outOfScope = principal.claim && claimRefusal(endpoint, principal.claim, params);
  if (outOfScope) {
    const response = errorResponse(outOfScope);
    if (outOfScope.code === "claim_ended") response.headers.set("WWW-Authenticate", 'Bearer realm="claimboard", error="invalid_token"');
    return { refusal: response };
  }
  const roles = rolesOf(endpoint);
  if (roles !== "public" && !roles.includes(principal.role)) {
    return { refusal: errorResponse({ code: "forbidden", message: `${article(principal.role)} ${principal.role} token may not call ${endpoint.operationId}` }) };
  }
  return { principal };
}

/**
 * Every route handler of the API: `authorize` the caller, read and validate the body and
 * query, then the endpoint's own code — usually one engine call. Errors leave in the one
 * error envelope (docs/contract.md#errors).
 */
export function handle<E extends Endpoint>(endpoint: E, fn: (call: Call<E>) => Promise<Response>) {
  return async (request: Request, context: RouteContext): Promise<Response> =>
    withTransportSecurity(request, await withinDeadline(`[api] ${endpoint.operationId}`, () => answer(endpoint, fn, request, context), () =>
      errorResponse({ code: "unavailable", message: "The database did not answer in time; retry shortly" })));
}

async function answer<E extends Endpoint>(endpoint: E, fn: (call: Call<E>) => Promise<Response>, request: Request, context: RouteContext) {
  try {
    const rawParams = (await context?.params) ?? {};
    const params = Object.fromEntries(Object.entries(rawParams).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : v]));
    let principal: TokenPrincipal | null = null;
    if (rolesOf(endpoint) !== "public") {
      const authorized = await authorize(endpoint, request, params);
      if ("refusal" in authorized) return authorized.refusal;
      principal = authorized.principal;
    }

    let body: unknown = undefined;
    if (endpoint.body) {
      const read = await readJsonBody(request);
      if (!read.ok) return bodyRefusal(read.error);
      const parsed = safeParse(endpoint.body, read.value);
      if (!parsed.success) return errorResponse(validationError(parsed.error));
      body = parsed.data;
      const asksTooMuch = principal?.claim && claimBodyRefusal(endpoint, principal.claim, body);
      if (asksTooMuch) return errorResponse(asksTooMuch);
    }
    let query: unknown = undefined;
    if (endpoint.query) {
      const parsed = safeParse(endpoint.query, Object.fromEntries(new URL(request.url).searchParams));
      if (!parsed.success) return errorResponse(validationError(parsed.error));
      query = parsed.data;
    }
    // Which process of the agent calls: recorded in the events its claims, heartbeats and completions write.
    const rawInstance = request.headers.get(INSTANCE_HEADER);
    const instance = rawInstance === null ? undefined : instanceHeader.safeParse(rawInstance);
    if (instance && !instance.success) {
      const issue = instance.error.issues[0]?.message ?? "is invalid";
      return errorResponse({ code: "invalid_request", message: `${INSTANCE_HEADER} header ${issue}`, field: INSTANCE_HEADER });
    }
    const actor = principal?.actor;
    const standing = principal ? tokenStanding(principal.role) : undefined;
    return await fn({
      request,
      principal,
      body: body as Infer<E["body"]>,
      query: query as Infer<E["query"]>,
      params,
      get db() {
        return getDatabase().db; // lazily: public endpoints such as the OpenAPI document need none
      },
      run: (op, input) => {
        if (!actor) throw new Error(`${endpoint.operationId}: engine call without a caller`);
        // The endpoint publishes its operation's who (access.ts): running one that admits others is a bug.
        if (!runsAsPublished(endpoint, op)) throw new Error(`${endpoint.operationId}: ${op.name} admits other tokens than the endpoint publishes`);
        return perform(op, input, { db: getDatabase().db, actor, standing, instance: instance?.data });
      },
    });
  } catch (error) {
    if (classifyDatabaseError(error) === "unavailable") {
      return errorResponse({ code: "unavailable", message: "The database is unavailable; retry shortly" });
    }
    console.error(`[api] ${endpoint.operationId} failed`, error);
    return Response.json({ error: { code: "internal", message: "Internal error" } }, { status: 500 });
  }
}

/**
 * A body refused before it was read to the end leaves its rest unread on the connection,
 * and the next request of that keep-alive connection would wait behind it (no proxy reads
 * /api/v1 bodies first any more): a 413 closes the connection once answered.
 */
function bodyRefusal(error: Parameters<typeof errorResponse>[0]): Response {
  const response = errorResponse(error);
  if (error.code === "payload_too_large") response.headers.set("Connection", "close");
  return response;
}

/** An engine result as a response: the value wrapped on success, the error shape otherwise. */
export function respond<T>(result: Result<T>, wrap: (value: T) => unknown, status = 200): Response {
  if (!result.ok) return errorResponse(result.error);
  return Response.json(wrap(result.value), { status, headers: { "Cache-Control": "no-store" } });
}
