import { z } from "zod";
import { effectObject, fenceVerdictObject, taskObject } from "@/lib/http/wire";
import { effectBody, resolveEffectBody, effectId, verifyFenceInput, taskId } from "@/lib/tasks/model";
import { describeTool } from "./refusals";
import type { Tool } from "./tools";

// Issue 22's MCP tools (docs/contract.md#mcp-as-a-connector): the effect ledger and fences, each one typed-client call
// with the API's body fields and the task as `id` (docs/effects.md, docs/fences.md). Kept in
// their own file; lib/mcp/tools.ts lists them with one line.

const OWNER = ["not_found", "version_conflict", "not_owner", "lease_expired", "invalid_transition", "busy"] as const;
const answer = z.object({ effect: effectObject, task: taskObject });
const tool = <S extends z.ZodType>(t: Tool<S>) => t as unknown as Tool;

export const effectTools: Tool[] = [
  tool({
    name: "record_effect", title: "Record an intent before acting outside the board", endpoint: "recordEffect", leaseEffect: "none",
    // The same key again answers the effect it made: repeating the call changes nothing more.
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Call this immediately BEFORE an action outside the board that must not happen twice (a charge, a mail, a push, a deploy), on a started task you hold. It answers an effect whose idempotencyKey you must send to that system (e.g. as its Idempotency-Key header): the key is the same for every attempt at this task with the same key (or name), so a successor's retry finds your call instead of repeating it. Recording the same key again answers the existing effect. After the action, call resolve_effect (applied or failed). If your attempt ends first, the effect becomes unknown and the next holder must resolve it before the task can be completed. The version stays the same.",
      [...OWNER, "forbidden"],
    ),
    input: effectBody.extend({ id: taskId }), output: answer,
    hints: { key: "Your own name for this act, stable across retries (e.g. \"charge:order-7\"); default: the name.", target: "Where the act goes (a URL, a system's name)." },
    call: (client, { id, version, ...effect }) => client.recordEffect({ id, version }, effect) as unknown as Promise<Record<string, unknown>>,
  }),
  tool({
    name: "resolve_effect", title: "Say what happened to an effect", endpoint: "resolveEffect", leaseEffect: "none",
    effect: { destructive: false, idempotent: true },
    description: describeTool(
      "Resolve an effect of the task you hold: state applied (it happened; pass the other system's reference as externalRef) or failed (it did not happen). Your own intent after its action; or an unknown effect an earlier attempt left (task.openEffects, state unknown) after you checked the other system by its idempotencyKey. complete_task answers effects_unresolved until every unknown effect is resolved.",
      [...OWNER, "forbidden"],
    ),
    input: resolveEffectBody.extend({ id: taskId, effectId }), output: answer,
    call: (client, { id, version, effectId: effect, ...resolution }) => client.resolveEffect({ id, version }, effect, resolution) as unknown as Promise<Record<string, unknown>>,
  }),
  tool({
    name: "verify_fence", title: "Check a fence", endpoint: "verifyFence", leaseEffect: "none",
    effect: { destructive: false, idempotent: true }, readsOnly: true,
    description: describeTool(
      "Check an agent's fence (task.fence of an owner call, or its Claimboard-Fence header): current is true only while that attempt still holds the task; reason says why not (superseded, released, lapsed, finished). Call it before acting on another agent's request, as a downstream service would.",
      ["forbidden"],
    ),
    input: verifyFenceInput, output: fenceVerdictObject,
    call: (client, { fence }) => client.verifyFence(fence) as unknown as Promise<Record<string, unknown>>,
  }),
];
