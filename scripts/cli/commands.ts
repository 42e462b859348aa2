import { parseArgs } from "node:util";
import { z } from "zod";
import { CliError, oneLine, usageError } from "./errors";
import { integer, json, list, optional, parse, required, str, type Action, type Command } from "./flags";
import { eventCommands } from "./events";
import { queueCommands } from "./queues";
import { taskCommands } from "./tasks";
import { scheduleCommands } from "./schedules";
import { webhookCommands } from "./webhooks";
import { effectCommands } from "./effects";
import { reservationCommands } from "./reservations";
import { questionCommands } from "./questions";
import { claimTokenCommands } from "./claim-tokens";
import { claimCommands } from "./claim";

export type { Action };

// Each command checks its flags before any database is touched, and loads the modules that
// do the work only then: a mistyped command answers quickly and writes nothing.

const commands: Record<string, Command> = {
  "user create": {
    usage: "user create --email E --name N --role staff|supervisor --password P",
    options: { email: str, name: str, role: str, password: str },
    async prepare(values) {
      const { createUserInput } = await import("@/lib/auth/users");
      const input = parse(createUserInput, {
        email: required(values, "email"),
        name: required(values, "name"),
        role: required(values, "role"),
        password: required(values, "password"),
      });
      return async (db) => {
        const { invitePerson } = await import("@/lib/auth/invite");
        const { performAsCli } = await import("./database");
        const { person: user } = await performAsCli(db, invitePerson, input, (text) =>
          /already signs in/.test(text) ? `a user with email ${input.email} already exists` : text);
        return [`created ${user.role} ${user.actor.name} <${user.email}>`];
      };
    },
  },

  // The way back in for a person who forgot their password, and for a supervisor with no
  // other supervisor to ask: the sign-in page names it. The same one-time link /people makes.
  "user reset-link": {
    usage: "user reset-link --email E [--base-url URL]",
    options: { email: str, "base-url": str },
    async prepare(values) {
      const email = required(values, "email").trim();
      const base = (optional(values, "base-url") ?? process.env.CLAIMBOARD_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/+$/, "");
      if (!/^https?:\/\/[^\s/]+/.test(base)) throw usageError("--base-url must be the board's address, http(s)://host[:port]");
      return async (db) => {
        const { sql } = await import("drizzle-orm");
        const { users } = await import("@/db/schema");
        const { issuePasswordReset, RESET_LINK_HOURS } = await import("@/lib/auth/reset-link");
        const { performAsCli } = await import("./database");
        const [person] = await db.select({ actorId: users.actorId }).from(users).where(sql`lower(${users.email}) = lower(${email})`);
        if (!person) throw new CliError(`no person signs in with ${email}`);
        const made = await performAsCli(db, issuePasswordReset, { actorId: person.actorId });
        return [`reset link for ${made.name} (works once, for ${RESET_LINK_HOURS} hours; any older link stops working):`, `${base}/login#reset=${made.token}`];
      };
    },
  },

  "token create": {
    usage: "token create --name N [--role agent|observer|supervisor] [--expires-days D|never]",
    options: { name: str, role: str, "expires-days": str },
    async prepare(values) {
      const { tokenName } = await import("@/lib/auth/tokens");
      const { tokenRole } = await import("@/db/schema");
      const { tokenExpiry } = await import("@/lib/auth/tokens");
      const days = optional(values, "expires-days");
      // The API's rule, in the CLI's words: its flag, and "never" where JSON says null.
      const cliWords = (error: unknown) => error instanceof CliError ? new CliError(error.message.replace("or null for never", "or never")) : error;
      const { name, role, expiresInDays } = (() => {
        try {
          return parse(
            z.object({ name: tokenName, role: z.enum(tokenRole.enumValues, "must be agent, observer or supervisor").optional(), expiresInDays: tokenExpiry.optional() }),
            { name: required(values, "name"), role: optional(values, "role"), expiresInDays: days === undefined ? undefined : days === "never" ? null : Number(days) },
            { expiresInDays: "--expires-days" },
          );
        } catch (error) {
          throw cliWords(error);
        }
      })();
      return async (db) => {
        const { createToken } = await import("@/lib/auth/token-admin");
        const { performAsCli } = await import("./database");
        const created = await performAsCli(db, createToken, { name, role, expiresInDays });
        const until = created.expiresAt ? `expires ${created.expiresAt.toISOString()}` : "never expires";
        // The secret goes last and alone, so `… | tail -1` captures it.
        return [`created ${created.role} token ${created.name} (${created.prefix}…, ${until}); it is shown only this once:`, created.token];
      };
    },
  },

  "token revoke": {
    usage: "token revoke --name N",
    options: { name: str },
    async prepare(values) {
      const { tokenName } = await import("@/lib/auth/tokens");
      const { name } = parse(z.object({ name: tokenName }), { name: required(values, "name") });
      return async (db) => {
        const { revokeToken } = await import("@/lib/auth/token-admin");
        const { performAsCli } = await import("./database");
        await performAsCli(db, revokeToken, { name }, (text) => (/^No live token/.test(text) ? `no live token named ${name}` : text));
        return [`revoked token ${name}`];
      };
    },
  },

  "token budget": {
    usage: "token budget --name N (--limit L --unit U | --lift)",
    options: { name: str, limit: str, unit: str, lift: { type: "boolean" } },
    async prepare(values) {
      const { tokenName } = await import("@/lib/auth/tokens");
      const { budget } = await import("@/lib/tasks/model");
      const { decimal } = await import("./flags");
      const lift = values.lift === true;
      if (lift && (values.limit !== undefined || values.unit !== undefined)) throw usageError("--lift takes no --limit or --unit");
      if (!lift && (values.limit === undefined || values.unit === undefined)) throw usageError("give --limit and --unit, or --lift");
      const input = {
        name: parse(z.object({ name: tokenName }), { name: required(values, "name") }).name,
        monthlyBudget: lift ? null : parse(budget, { limit: decimal(values, "limit"), unit: required(values, "unit") }),
      };
      return async (db) => {
        const { setMonthlyBudget } = await import("@/lib/auth/token-admin");
        const { performAsCli } = await import("./database");
        await performAsCli(db, setMonthlyBudget, input, (text) => (/^No live token/.test(text) ? `no live token named ${input.name}` : text));
        return [input.monthlyBudget ? `token ${input.name} may spend ${input.monthlyBudget.limit} ${input.monthlyBudget.unit} a month` : `token ${input.name} has no monthly cap`];
      };
    },
  },

  "task create": {
    usage: "task create --title T [--queue Q] [--priority P] [--payload JSON] [--depends-on 4,7] [--not-before ISO-TIME] [--key K]",
    options: { title: str, queue: str, priority: str, payload: str, "depends-on": str, "not-before": str, key: str },
    async prepare(values) {
      const { createTaskInput } = await import("@/lib/tasks/model");
      const input = parse(createTaskInput, {
        title: required(values, "title"),
        queue: optional(values, "queue"),
        priority: integer(values, "priority"),
        payload: json(values, "payload"),
        dependsOn: list(values, "depends-on"),
        notBefore: optional(values, "not-before"),
        idempotencyKey: optional(values, "key"),
      }, { idempotencyKey: "--key" });
      return async (db) => {
        const { createTaskOnce } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const created = await performAsCli(db, createTaskOnce, input, (text) => text.replace(/^dependsOn:/, "--depends-on:"));
        return [created.task.id];
      };
    },
  },

  ...queueCommands,
  ...webhookCommands,
  ...scheduleCommands,

  "task readiness": {
    usage: "task readiness ID",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      const { taskId } = await import("@/lib/tasks/model");
      if (positionals.length !== 1) throw usageError("task readiness takes one task id");
      const id = parse(taskId, positionals[0], {});
      return async (db) => {
        const { taskReadiness } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const r = await performAsCli(db, taskReadiness, { taskId: id });
        const head = r.claimable ? `task ${id} is claimable` : `task ${id} is not claimable`;
        const when = r.claimableAt ? ` (claimable at ${r.claimableAt.toISOString()})` : "";
        return [`${head}${when}`, ...r.reasons.map((reason) => `  ${reason.code}: ${reason.message}`)];
      };
    },
  },
  ...taskCommands,
  ...eventCommands,
  ...effectCommands,
  ...reservationCommands,
  ...questionCommands,
  ...claimTokenCommands,
  ...claimCommands,
};

/** The command line as an action ready to run, or a CliError saying what is wrong with it. */
export async function parseCommand(argv: string[]): Promise<Action> {
  const [group, action, ...rest] = argv;
  const command = commands[`${group} ${action}`];
  if (!command) {
    if (!group || group.startsWith("-")) throw usageError("no command given");
    const actions = Object.keys(commands).filter((name) => name.startsWith(`${group} `));
    if (actions.length === 0) throw usageError(`unknown command ${JSON.stringify(group)}`);
    throw usageError(`unknown command ${JSON.stringify(`${group} ${action ?? ""}`.trim())}; ${group} takes: ${actions.join(", ")}`);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: command.positionals ?? false });
  } catch (error) {
    throw usageError(oneLine(error instanceof Error ? error.message : String(error)).replace(/^./, (c) => c.toLowerCase()));
  }
  return command.prepare(parsed.values, parsed.positionals);
}

export const usage = [
  "usage: npm run cli -- <command>",
  "",
  "Works against DATABASE_URL, or the project's embedded PostgreSQL in .data/ (started for",
  "the command when `npm start` is not running). Pending migrations are applied first.",
  "",
  "commands:",
  ...Object.values(commands).map((c) => `  ${c.usage}`),
  "",
  "token create prints the new token alone on the last line of stdout; it is shown only once.",
  "claim-token create does too; it talks to the server (CLAIMBOARD_URL) as CLAIMBOARD_TOKEN, the task's owner.",
  "task claim talks to the server as CLAIMBOARD_TOKEN too; --wait S holds until a task is claimable (at most S s).",
  "task create prints the new task's id.",
  "events archive writes whole months of finished tasks' events to a gzip'd JSON Lines file, then drops them.",
].join("\n");
