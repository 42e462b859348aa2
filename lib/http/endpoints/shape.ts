import type { z } from "zod";
import type { TokenRole } from "@/db/schema";
import { EVERYONE, SUPERVISORS, tokenRoles } from "@/lib/tasks/model";
import * as input from "@/lib/tasks/model";
import { taskResponse } from "../wire";

// The shape of a registry entry and the pieces its parts share (lib/http/endpoints.ts assembles them).

export interface Endpoint {
  operationId: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI form, under /api/v1. */
  path: string;
  summary: string;
  /**
   * Token roles allowed; "public" needs no token. Stated only by an endpoint that runs no engine
   * operation (a read of the board, the stream, the document): one that runs an operation
   * admits what its `who` admits (lib/http/access.ts rolesOf, which every reader asks).
   */
  roles?: TokenRole[] | "public";
  /** Also open to a signed-in person's session cookie (the browser's EventSource). */
  session?: boolean;
  body?: z.ZodType;
  query?: z.ZodType;
  success: { status: number; description: string; schema?: z.ZodType; contentType?: "application/json" | "text/event-stream" | "text/plain" };
  /** Other answers that are not errors (no schema: no body), e.g. 204 when nothing is claimable. */
  alsoAnswers?: { status: number; description: string; schema?: z.ZodType }[];
  /** Error statuses beyond the ones every authenticated endpoint may answer. */
  errors: number[];
}

/** Reads that run no operation, in the operations' words; one that runs one takes its roles from it (access.ts). */
export const READ = tokenRoles(EVERYONE);
/** Monitoring: a supervisor's token, or an observer token (an operator's, for a scraper). */
export const OPERATE: TokenRole[] = ["observer", "supervisor"];
/** The supervisors' API: a supervisor token only. */
export const SUPERVISE = tokenRoles(SUPERVISORS);
export const OWNER_CALL_ERRORS = [400, 404, 409, 413];

// Generic in the body, and `satisfies` rather than a return type, so each entry keeps its
// own schemas' types: the typed client's methods take and answer them (lib/client).
export const ownerCall = <B extends z.ZodType>(operationId: string, verb: string, summary: string, body: B) => ({
  operationId,
  method: "POST",
  path: `/tasks/{id}/${verb}`,
  summary,
  body,
  success: { status: 200, description: "The task after the call", schema: taskResponse },
  errors: OWNER_CALL_ERRORS,
}) satisfies Endpoint;

/** POST /tasks/{id}/<verb> {version, reason?}: a supervisor's decision over a task (lib/tasks/supervise/supervise.ts, release.ts). */
export const supervisorCall = (operationId: string, verb: string, summary: string) => ({
  operationId,
  method: "POST",
  path: `/tasks/{id}/${verb}`,
  summary,
  body: input.superviseBody,
  success: { status: 200, description: "The task after the decision", schema: taskResponse },
  errors: OWNER_CALL_ERRORS,
}) satisfies Endpoint;
