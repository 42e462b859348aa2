import { describe, expect, test } from "vitest";
import {
  addComment, addDependencies, cancel, claim, claimBatch, claimNext, completeAndClaimNext, completeMany, createQueue, createTaskOnce, removeDependency,
  editTask, failTask, forceRelease, recordSideEffect, release, releaseReservations, renew, requeue, resolve, start, taskReadiness, updateQueue, verifyFence,
  recordEffect, resolveEffect, taskEffectsList, listReservations, review, askQuestion, getQuestion, answerQuestion, createClaimToken, raiseBudget,
} from "@/lib/tasks";
import type { Standing } from "@/lib/tasks/core/standing";
import type { TokenRole } from "@/db/schema";
import { adoptWebhook, createWebhook, deleteWebhook } from "@/lib/webhooks/ops";
import { attention } from "@/lib/attention/attention";
import { setMonthlyBudget } from "@/lib/auth/token-admin";
import { adoptSchedule, createSchedule, deleteSchedule, updateSchedule } from "@/lib/schedules/ops";
import { endpoints } from "./endpoints";
import { buildOpenApiDocument } from "./openapi";

// Who may call an endpoint is published twice: the registry's `roles` (OpenAPI's x-roles, the
// MCP tool lists, the handler's 403 before the body is read) and the engine's `who` on the
// operation the route runs. They must say the same, or the API would promise what the engine
// refuses (or let the engine be the only thing saying no, with another message).

type EndpointName = keyof typeof endpoints;
/** What this test reads of an operation. */
type Rule = { name: string; who: readonly Standing[] };

/** The engine operation each endpoint's route runs (app/api/v1/**\/route.ts). */
const OPERATION_OF: Partial<Record<EndpointName, Rule>> = {
  createTask: createTaskOnce,
  attention,
  addDependencies,
  removeDependency,
  taskReadiness,
  verifyFence,
  recordEffect,
  resolveEffect,
  listEffects: taskEffectsList,
  listReservations,
  askQuestion,
  getQuestion,
  answerQuestion,
  createClaimToken,
  editTask,
  addComment,
  claimNext,
  claimBatch,
  claimTask: claim,
  startTask: start,
  heartbeat: renew,
  recordSideEffect,
  releaseTask: release,
  completeTask: completeAndClaimNext,
  completions: completeMany,
  failTask,
  reviewTask: review,
  raiseBudget,
  setTokenBudget: setMonthlyBudget,
  requeueTask: requeue,
  resolveTask: resolve,
  cancelTask: cancel,
  forceReleaseTask: forceRelease,
  releaseReservations,
  createQueue,
  updateQueue,
  createWebhook,
  deleteWebhook,
  createSchedule,
  updateSchedule,
  deleteSchedule,
  adoptSchedule,
  adoptWebhook,
};

/** Endpoints that run no engine operation: reads of the board, the stream, the document itself. */
const NO_OPERATION: EndpointName[] = ["listTasks", "countTasks", "getTask", "listTaskEvents", "listQueues", "events", "openapi", "metrics", "health", "listWebhooks", "listWebhookDeliveries", "listSchedules", "getFleet"];

/** A token's role and the standing it gives its caller (lib/tasks/core/standing.ts, tokenStanding). */
const STANDING_OF: Record<TokenRole, Standing> = { agent: "agent", observer: "observer", supervisor: "supervisor" };

const document = buildOpenApiDocument();
const published = (name: EndpointName): readonly string[] | "public" => {
  const endpoint = endpoints[name];
  const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase() as "get"];
  if (!operation) throw new Error(`${name} is not in the OpenAPI document`);
  return operation["x-roles"];
};

describe("the API's declared roles are the operations' rules", () => {
  test("every endpoint either runs an operation listed here or is a read that runs none; every write runs one", () => {
    for (const name of Object.keys(endpoints) as EndpointName[]) {
      const mapped = name in OPERATION_OF;
      expect(mapped !== NO_OPERATION.includes(name), `${name}: list it in exactly one of OPERATION_OF and NO_OPERATION`).toBe(true);
      if (endpoints[name].method !== "GET") expect(mapped, `${name} writes, so it runs an operation`).toBe(true);
    }
  });

  test.each(Object.entries(OPERATION_OF) as [EndpointName, Rule][])("%s: x-roles equal the operation's who", (name, op) => {
    const roles = published(name);
    expect(roles, `${name} needs a token`).not.toBe("public");
    const asStandings = [...(roles as TokenRole[])].map((role) => STANDING_OF[role]).sort();
    const admitted = op.who.filter((standing) => (Object.values(STANDING_OF) as Standing[]).includes(standing)).sort();
    expect(asStandings, `${name} publishes ${String(roles)}; ${op.name} admits ${op.who.join(", ")}`).toEqual(admitted);
    expect(endpoints[name].roles, "the registry and the document agree").toEqual(roles);
  });
});
