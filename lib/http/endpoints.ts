import { errorObject, eventObject, queueObject, readinessObject, taskCountsObject, taskObject } from "./wire";
import type { Endpoint } from "./endpoints/shape";
import { tasksEndpoints } from "./endpoints/tasks";
import { workEndpoints } from "./endpoints/work";
import { operateEndpoints } from "./endpoints/operate";

export { errorObject, eventObject, readinessObject, taskObject };
/** @public The wire objects stay importable from the registry's module, as before its split. */
export { queueObject, taskCountsObject };
export type { Endpoint };

// Every endpoint of the agent API, once: the only list of them. The route files, the MCP
// endpoint's in-process calls (lib/http/handlers joins each entry with its handler), the
// typed client (lib/client) and the OpenAPI document are all made from these entries.
// Pure (zod schemas only), so the typed client can import it.

/** The request header naming the calling process of an agent (host:pid, …); see the handler. */
export const INSTANCE_HEADER = "Claimboard-Instance";

// Assembled from per-area parts (lib/http/endpoints/); the key order is the OpenAPI document's order.
export const endpoints = { ...tasksEndpoints, ...workEndpoints, ...operateEndpoints } satisfies Record<string, Endpoint>;

/** An endpoint's key in the registry: the typed client's routes and the handlers are keyed by it. */
export type EndpointId = keyof typeof endpoints;
