import { endpoints, type EndpointId } from "@/lib/http/endpoints";

/**
 * The endpoint each of the client's routes calls, by the registry's key. The client's
 * names are its public surface (`start`, not startTask), so they map here, once; method
 * and path come from the registry.
 */
const ROUTE_ENDPOINTS = {
  createTask: "createTask",
  listTasks: "listTasks",
  countTasks: "countTasks",
  getTask: "getTask",
  listTaskEvents: "listTaskEvents",
  claimNext: "claimNext",
  claimBatch: "claimBatch",
  claimTask: "claimTask",
  start: "startTask",
  heartbeat: "heartbeat",
  recordSideEffect: "recordSideEffect",
  release: "releaseTask",
  complete: "completeTask",
  completeMany: "completions",
  fail: "failTask",
  review: "reviewTask",
  addDependencies: "addDependencies",
  removeDependency: "removeDependency",
  taskReadiness: "taskReadiness",
  taskLease: "taskLease",
  ack: "ackTask",
  editTask: "editTask",
  addComment: "addComment",
  health: "health",
  requeue: "requeueTask",
  resolve: "resolveTask",
  cancel: "cancelTask",
  forceRelease: "forceReleaseTask",
  releaseReservations: "releaseReservations",
  listQueues: "listQueues",
  createQueue: "createQueue",
  updateQueue: "updateQueue",
  createSchedule: "createSchedule",
  listSchedules: "listSchedules",
  updateSchedule: "updateSchedule",
  deleteSchedule: "deleteSchedule",
  adoptSchedule: "adoptSchedule",
  createWebhook: "createWebhook",
  listWebhooks: "listWebhooks",
  deleteWebhook: "deleteWebhook",
  adoptWebhook: "adoptWebhook",
  listWebhookDeliveries: "listWebhookDeliveries",
  verifyFence: "verifyFence",
  recordEffect: "recordEffect",
  listEffects: "listEffects",
  resolveEffect: "resolveEffect",
  recordCheckpoint: "recordCheckpoint",
  listCheckpoints: "listCheckpoints",
  listReservations: "listReservations",
  askQuestion: "askQuestion",
  getQuestion: "getQuestion",
  answerQuestion: "answerQuestion",
  createClaimToken: "createClaimToken",
  raiseBudget: "raiseBudget",
  setTokenBudget: "setTokenBudget",
  getFleet: "getFleet",
  attention: "attention",
} as const satisfies Record<string, EndpointId>;

export type RouteName = keyof typeof ROUTE_ENDPOINTS;
/** The registry key a client route calls. */
export type EndpointOf<R extends RouteName> = (typeof ROUTE_ENDPOINTS)[R];

/** Every route this client calls, under /api/v1: the registry's method and path template. */
export const clientRoutes = Object.fromEntries(
  Object.entries(ROUTE_ENDPOINTS).map(([name, id]) => [name, { method: endpoints[id].method, path: endpoints[id].path }]),
) as { readonly [R in RouteName]: { readonly method: (typeof endpoints)[EndpointOf<R>]["method"]; readonly path: string } };
