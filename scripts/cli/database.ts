import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { connectDatabase, type Db } from "@/db/client";
import { migrateDatabase } from "@/db/migrate";
import { settlePrepare } from "@/db/pooler";
import { openProjectDatabase } from "@/db/project-database";
import { actors, users } from "@/db/schema";
import type { z } from "zod";
import { createActor, type ActorRef, classifyDatabaseError, perform, type Operation } from "@/lib/tasks";
import { CliError, describe, oneLine } from "./errors";

/**
 * Runs `fn` against the configured database: DATABASE_URL, or the project's embedded
 * PostgreSQL (the running one, else one started for this command and stopped after),
 * with pending migrations applied first.
 */
export async function withDatabase<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const project = await openProjectDatabase().catch((error: unknown) => {
    throw new CliError(`cannot start the embedded PostgreSQL: ${describe(error)}`);
  });
  try {
    if (project.source === "env") await settlePrepare(project.url).catch(() => {}); // unreachable: said by the migration below
    await migrateDatabase(project.url).catch((error: unknown) => {
      throw classifyDatabaseError(error) === "unavailable"
        ? new CliError(`cannot reach the database: ${describe(error)}`)
        : new CliError(`migrations failed: ${describe(error)}`);
    });
    const { db, client } = connectDatabase(project.url, { max: 2, applicationName: "claimboard-cli" });
    try {
      return await fn(db);
    } finally {
      await client.end({ timeout: 5 });
    }
  } finally {
    await project.release().catch(() => {});
  }
}

/**
 * The actor the CLI's task operations run as: one `user` actor named "cli" that is no
 * person's account, made on first use. An advisory lock keeps two first runs from making two.
 */
export async function cliActor(db: Db): Promise<ActorRef> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('claimboard:cli-actor'))`);
    const [found] = await tx
      .select({ id: actors.id, name: actors.name, kind: actors.kind })
      .from(actors)
      .leftJoin(users, eq(users.actorId, actors.id))
      .where(and(eq(actors.kind, "user"), eq(actors.name, "cli"), isNull(users.actorId)))
      .orderBy(asc(actors.createdAt), asc(actors.id))
      .limit(1);
    return found ?? createActor(tx, "user", "cli");
  });
}

/**
 * Runs an engine operation as the CLI's actor, in the operator's standing (whoever runs the
 * CLI holds the database itself), and returns its value; a refusal is the
 * command's one-line error (`message` may reword it in the CLI's terms, e.g. flag names).
 */
export async function performAsCli<S extends z.ZodType, O>(
  db: Db,
  op: Operation<S, O>,
  input: unknown,
  message: (text: string) => string = (text) => text,
): Promise<O> {
  const result = await perform(op, input, { db, actor: await cliActor(db), standing: "operator" });
  if (!result.ok) throw new CliError(oneLine(message(result.error.message)));
  return result.value;
}
