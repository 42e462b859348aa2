import "server-only";
import { clientRoutes } from "@/lib/client";
import type { TokenPrincipal } from "@/lib/auth/tokens";
import { asInProcessCall } from "@/lib/http/handler";
import { errorResponse } from "@/lib/http/errors";
import * as claims from "@/app/api/v1/claims/route";
import * as claimBatch from "@/app/api/v1/claims/batch/route";
import * as completions from "@/app/api/v1/completions/route";
import * as health from "@/app/api/v1/health/route";
import * as tasks from "@/app/api/v1/tasks/route";
import * as counts from "@/app/api/v1/tasks/counts/route";
import * as task from "@/app/api/v1/tasks/[id]/route";
import * as claim from "@/app/api/v1/tasks/[id]/claim/route";
import * as complete from "@/app/api/v1/tasks/[id]/complete/route";
import * as events from "@/app/api/v1/tasks/[id]/events/route";
import * as fail from "@/app/api/v1/tasks/[id]/fail/route";
import * as heartbeat from "@/app/api/v1/tasks/[id]/heartbeat/route";
import * as release from "@/app/api/v1/tasks/[id]/release/route";
import * as sideEffects from "@/app/api/v1/tasks/[id]/side-effects/route";
import * as start from "@/app/api/v1/tasks/[id]/start/route";
import * as dependencies from "@/app/api/v1/tasks/[id]/dependencies/route";
import * as readiness from "@/app/api/v1/tasks/[id]/readiness/route";
import * as comments from "@/app/api/v1/tasks/[id]/comments/route";
import * as requeue from "@/app/api/v1/tasks/[id]/requeue/route";
import * as resolve from "@/app/api/v1/tasks/[id]/resolve/route";
import * as cancel from "@/app/api/v1/tasks/[id]/cancel/route";
import * as forceRelease from "@/app/api/v1/tasks/[id]/force-release/route";
import * as queues from "@/app/api/v1/queues/route";
import * as queue from "@/app/api/v1/queues/[name]/route";

// The typed client's fetch for /api/mcp: each request goes straight to the API's own route
// handler in this process — no socket, the same guard, validation and engine call as over
// HTTP — as the MCP request's already-authenticated caller. The table is typed by the
// client's routes, so a route the client gains without one here fails the typecheck.

type RouteHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const handlers: Record<keyof typeof clientRoutes, RouteHandler> = {
  createTask: tasks.POST,
  listTasks: tasks.GET,
  countTasks: counts.GET,
  getTask: task.GET,
  listTaskEvents: events.GET,
  claimNext: claims.POST,
  claimBatch: claimBatch.POST,
  claimTask: claim.POST,
  start: start.POST,
  heartbeat: heartbeat.POST,
  recordSideEffect: sideEffects.POST,
  release: release.POST,
  complete: complete.POST,
  completeMany: completions.POST,
  fail: fail.POST,
  addDependencies: dependencies.POST,
  taskReadiness: readiness.GET,
  editTask: task.PATCH,
  addComment: comments.POST,
  health: health.GET,
  requeue: requeue.POST,
  resolve: resolve.POST,
  cancel: cancel.POST,
  forceRelease: forceRelease.POST,
  listQueues: queues.GET,
  createQueue: queues.POST,
  updateQueue: queue.PATCH,
};

const routes = Object.entries(clientRoutes).map(([name, { method, path }]) => ({
  method,
  pattern: new RegExp(`^/api/v1${path.replace(/\{(\w+)\}/, "(?<$1>[^/]+)")}$`),
  handler: handlers[name as keyof typeof clientRoutes],
}));

export function inProcessFetch(principal: TokenPrincipal): typeof fetch {
  return async (input, init) => {
    const request = asInProcessCall(new Request(input, init), principal);
    const { pathname } = new URL(request.url);
    for (const route of routes) {
      const match = route.method === request.method ? route.pattern.exec(pathname) : null;
      if (!match) continue;
      const params = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
      return route.handler(request, { params: Promise.resolve(params) });
    }
    return errorResponse({ code: "not_found", message: `No endpoint ${request.method} ${pathname}` });
  };
}
