import type { z } from "zod";
import type { Db, Tx } from "@/db/client";
import { observeOperation } from "@/lib/metrics/registry";
import { databaseClock, type Clock } from "./clock";
import type { MoveName } from "./machine";
import { mayMake, refusalMessage, type Standing } from "./standing";
import { loadTask } from "./task-row";
import { fail, type ActorRef, type EngineError, type Result } from "./types";
import { safeParse, validationError } from "./parse";

export interface OperationContext {
  actor: ActorRef;
  /** Who is calling (lib/tasks/core/standing.ts); absent for in-process code that is no surface. */
  standing?: Standing;
  clock: Clock;
  /** Which process of the actor calls (the Claimboard-Instance header), recorded in its events. */
  instance?: string;
}

/** One engine operation: a schema for its input and a body that runs in one transaction. */
export interface Operation<S extends z.ZodType, O> {
  name: string;
  /**
   * The standings that may perform it; `perform` refuses any other before a transaction opens.
   * The one source of who may: an endpoint's token roles and a server action's people follow
   * from it (lib/http/access.ts, lib/auth/action.ts).
   */
  who: readonly Standing[];
  /** The machine's moves it makes, when it makes any: its `who` is then theirs (mayMake). */
  makes?: readonly MoveName[];
  input: S;
  run(tx: Tx, input: z.infer<S>, ctx: OperationContext): Promise<Result<O>>;
}

/**
 * An operation that makes moves of the machine names them (`makes`) and takes its `who` from
 * their rows; any other states its `who` (a queue's settings, a token, a read).
 */
type Declared<S extends z.ZodType, O> = Omit<Operation<S, O>, "who" | "makes"> &
  ({ makes: readonly MoveName[]; who?: never } | { who: readonly Standing[]; makes?: never });

export const defineOperation = <S extends z.ZodType, O>(op: Declared<S, O>): Operation<S, O> =>
  op.makes ? { ...op, who: mayMake(...op.makes) } : (op as Operation<S, O>);

/**
 * Thrown inside an operation to roll its transaction back and answer `result` (an expected
 * failure) — for a composite call whose later step was refused after an earlier one wrote.
 */
export class Rollback {
  constructor(readonly result: { ok: false; error: EngineError }) {}
}

export interface PerformContext {
  db: Db;
  actor: ActorRef;
  /**
   * Who is calling, derived once by the surface: every surface (server actions, the API, MCP,
   * the CLI) passes one. Absent only for in-process code that is no surface — seeds, the
   * demo, tests, benches — which `who` does not gate; the operations' own rules (ownership,
   * who may edit) still hold, as for a caller of no special standing.
   */
  standing?: Standing;
  clock?: Clock;
  instance?: string;
}

/**
 * Checks the caller's standing against the operation's `who`, validates the input, then runs the operation in one transaction. Expected failures
 * come back as values; a database that cannot be reached becomes `unavailable`; anything
 * else is a bug and throws. A thrown error rolls the whole transaction back.
 */
export async function perform<S extends z.ZodType, O>(
  op: Operation<S, O>,
  rawInput: unknown,
  ctx: PerformContext,
): Promise<Result<O>> {
  if (ctx.standing !== undefined && !op.who.includes(ctx.standing)) {
    // Refused before the input is read or a transaction opens, as the guards at the edges did.
    observeOperation(op.name, 0, "forbidden");
    return fail({ code: "forbidden", message: refusalMessage(op.name, op.who, ctx.standing) });
  }
  const parsed = safeParse(op.input, rawInput);
  if (!parsed.success) return fail(validationError(parsed.error));
  const clock = ctx.clock ?? databaseClock;
  const began = performance.now();
  const result = await run(op, parsed.data, ctx, clock);
  observeOperation(op.name, (performance.now() - began) / 1000, result.ok ? null : result.error.code);
  return result;
}

async function run<S extends z.ZodType, O>(op: Operation<S, O>, input: z.infer<S>, ctx: PerformContext, clock: Clock): Promise<Result<O>> {
  try {
    return await ctx.db.transaction((tx) => op.run(tx, input, { actor: ctx.actor, standing: ctx.standing, clock, instance: ctx.instance }));
  } catch (error) {
    if (error instanceof Rollback) return error.result;
    const classified = classifyDatabaseError(error);
    if (classified === "busy") {
      const taskId = (input as { taskId?: string }).taskId;
      const task = taskId ? await loadTask(ctx.db, taskId).catch(() => null) : null;
      return fail({
        code: "busy",
        message: taskId
          ? `Task ${taskId} is being changed by another request; retry shortly`
          : "Another request holds what this call needs; retry shortly",
        ...(task ? { task } : {}),
      });
    }
    if (classified === "unavailable") {
      return fail({ code: "unavailable", message: "The database is unavailable; retry shortly" });
    }
    throw error;
  }
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
  // Refused while connecting: the database is gone or renamed, or the role or its password
  // was changed. None of these arises from a statement of ours on a working connection.
  "3D000", // invalid_catalog_name
  "28000", // invalid_authorization_specification
  "28P01", // invalid_password
]);

/**
 * object_not_in_prerequisite_state is also what some statements raise; only the startup's
 * "database is not currently accepting connections" (ALLOW_CONNECTIONS false) means unavailable.
 */
const refusedAtStartup = (e: { code?: unknown; file?: unknown }) => e.code === "55000" && e.file === "postinit.c";

/** Walks the cause chain (Drizzle wraps driver errors) for a code we know. */
export function classifyDatabaseError(error: unknown): "busy" | "unavailable" | null {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (code === "55P03") return "busy"; // lock_not_available: lock_timeout ran out
    if (CONNECTION_CODES.has(code) || code.startsWith("08") || refusedAtStartup(e as { file?: unknown; code: string })) return "unavailable";
  }
  return null;
}
