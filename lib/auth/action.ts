import "server-only";
import type { z } from "zod";
import { getDatabase } from "@/db";
import type { UserRole } from "@/db/schema";
import type { Db } from "@/db/client";
import { classifyDatabaseError, perform, type Operation } from "@/lib/tasks";
import { safeParse, validationError, personRoles, personStanding, type Standing, type EngineError, type Result } from "@/lib/tasks/model";
import { withinDeadline } from "@/lib/deadline";
import { limits, take, tokenKey } from "@/lib/http/rate-limit";
import { currentUser, hasRole, ROLES_AT_LEAST } from "./session";
import type { UserAccount } from "./users";

export type ActionError = Omit<EngineError, "code"> & {
  code: EngineError["code"] | "unauthorized" | "forbidden" | "rate_limited";
  /** With rate_limited: seconds until the next call may go through. */
  retryAfterSeconds?: number;
};
export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: ActionError };

export interface ActionContext {
  user: UserAccount;
  db: Db;
  /** Runs an engine operation as the signed-in person, in their standing. */
  run<S extends z.ZodType, O>(op: Operation<S, O>, input: unknown): Promise<Result<O>>;
}

/**
 * Every server action goes through here: server actions are public POST endpoints, so
 * each one resolves the session and re-reads the person's current role and disabled flag
 * from the database — their standing — before anything else. Expected failures come back
 * as values, never as thrown errors.
 */
function sessionAction<T>(
  name: string,
  body: (raw: unknown, ctx: ActionContext & { standing: Standing }) => Promise<ActionResult<T>>,
): (raw: unknown) => Promise<ActionResult<T>> {
  return (raw) => withinDeadline(`[action] ${name}`, () => run(raw), () => ({
    ok: false, error: { code: "unavailable", message: "The database did not answer in time; try again shortly" },
  }));

  async function run(raw: unknown): Promise<ActionResult<T>> {
    try {
      const user = await currentUser();
      if (!user) return { ok: false, error: { code: "unauthorized", message: "Please sign in again" } };
      const db = getDatabase().db;
      // The API's per-caller limit, in the same bucket as the person's API reads with the cookie.
      const wait = await take(db, tokenKey(`session:${user.actor.id}`), limits().perToken);
      if (wait > 0) {
        return { ok: false, error: { code: "rate_limited", message: `Too many requests; try again in ${wait} s`, retryAfterSeconds: wait } };
      }
      const standing = personStanding(user.role);
      return await body(raw, { user, db, standing, run: (op, input) => perform(op, input, { db, actor: user.actor, standing }) });
    } catch (error) {
      if (classifyDatabaseError(error) === "unavailable") {
        return { ok: false, error: { code: "unavailable", message: "The database is unavailable; try again shortly" } };
      }
      console.error("[action] failed", error);
      return { ok: false, error: { code: "unavailable", message: "Something went wrong; try again" } };
    }
  }
}

/**
 * An action that is not one engine operation (a page's read, a composite call): `role` is
 * who may call it, checked before its input is validated with the same zod schema the API
 * uses. The operations it runs are still decided by the engine.
 */
export function guardedAction<S extends z.ZodType, T>(
  role: UserRole,
  schema: S,
  body: (input: z.infer<S>, ctx: ActionContext) => Promise<Result<T>>,
  /** For the log, when the action does not answer in time. */
  name = body.name || "a server action",
): (input: z.input<S>) => Promise<ActionResult<T>> {
  return sessionAction(name, async (raw, ctx) => {
    if (!hasRole(ctx.user, role)) return { ok: false, error: { code: "forbidden", message: `Only a ${role} may do this` } };
    const parsed = safeParse(schema, raw);
    if (!parsed.success) return { ok: false, error: validationError(parsed.error) };
    return body(parsed.data, ctx);
  });
}

/**
 * The common case: one engine operation as the signed-in person. Who may is the operation's
 * `who`, decided by `perform` from the person's standing (standing.ts personRoles says which
 * people that is); `role` names them for the reader and the actions' attack matrix, and must
 * say what `who` says (checked here, once, when the module loads).
 */
export function operationAction<S extends z.ZodType, O>(role: UserRole, op: Operation<S, O>): (input: z.input<S>) => Promise<ActionResult<O>> {
  const people = personRoles(op.who);
  if (people.join() !== ROLES_AT_LEAST[role].join()) {
    throw new Error(`operationAction("${role}", ${op.name}): the operation admits ${people.join(", ") || "no person"}`);
  }
  return sessionAction(op.name, (raw, { run }) => run(op, raw));
}
