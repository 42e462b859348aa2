import "server-only";
import type { z } from "zod";
import { getDatabase } from "@/db";
import type { UserRole } from "@/db/schema";
import type { Db } from "@/db/client";
import { classifyDatabaseError, perform, safeParse, validationError, type Operation } from "@/lib/tasks/engine";
import type { EngineError, Result } from "@/lib/tasks/types";
import { withinDeadline } from "@/lib/deadline";
import { currentUser, hasRole } from "./session";
import type { UserAccount } from "./users";

export type ActionError = Omit<EngineError, "code"> & { code: EngineError["code"] | "unauthorized" | "forbidden" };
export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: ActionError };

export interface ActionContext {
  user: UserAccount;
  db: Db;
  /** Runs an engine operation as the signed-in person. */
  run<S extends z.ZodType, O>(op: Operation<S, O>, input: unknown): Promise<Result<O>>;
}

/**
 * Every server action goes through here: server actions are public POST endpoints, so
 * each one resolves the session, re-reads the person's current role and disabled flag
 * from the database, and validates its input with the same zod schema the API uses —
 * before anything else. Expected failures come back as values, never as thrown errors.
 */
export function guardedAction<S extends z.ZodType, T>(
  role: UserRole,
  schema: S,
  body: (input: z.infer<S>, ctx: ActionContext) => Promise<Result<T>>,
  /** For the log, when the action does not answer in time. */
  name = body.name || "a server action",
): (input: z.input<S>) => Promise<ActionResult<T>> {
  return (raw) => withinDeadline(`[action] ${name}`, run(raw), () => ({
    ok: false, error: { code: "unavailable", message: "The database did not answer in time; try again shortly" },
  }));

  async function run(raw: z.input<S>): Promise<ActionResult<T>> {
    try {
      const user = await currentUser();
      if (!user) return { ok: false, error: { code: "unauthorized", message: "Please sign in again" } };
      if (!hasRole(user, role)) return { ok: false, error: { code: "forbidden", message: `Only a ${role} may do this` } };
      const parsed = safeParse(schema, raw);
      if (!parsed.success) return { ok: false, error: validationError(parsed.error) };
      const db = getDatabase().db;
      return await body(parsed.data, { user, db, run: (op, input) => perform(op, input, { db, actor: user.actor }) });
    } catch (error) {
      if (classifyDatabaseError(error) === "unavailable") {
        return { ok: false, error: { code: "unavailable", message: "The database is unavailable; try again shortly" } };
      }
      console.error("[action] failed", error);
      return { ok: false, error: { code: "unavailable", message: "Something went wrong; try again" } };
    }
  }
}

/** The common case: one engine operation, its own schema, as the signed-in person. */
export function operationAction<S extends z.ZodType, O>(role: UserRole, op: Operation<S, O>) {
  return guardedAction(role, op.input, (input, { run }) => run(op, input), op.name);
}
