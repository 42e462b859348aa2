import path from "node:path";
import { CliError, usageError } from "./errors";
import { optional, required, str, type Command } from "./flags";

// Retiring the log (docs/engine.md): the work is lib/events/archive.ts; this reads the flags,
// refuses a malformed month before any database is touched, and says what was done.

export const eventCommands: Record<string, Command> = {
  "events archive": {
    usage: "events archive --before YYYY-MM [--out FILE]",
    options: { before: str, out: str },
    async prepare(values) {
      const { isMonth } = await import("@/lib/events/archive");
      const before = required(values, "before");
      if (!isMonth(before)) throw usageError(`--before must be a month as YYYY-MM, not ${JSON.stringify(before)}`);
      // Relative to where the person typed it: `npm run` moves to the project's folder (INIT_CWD is theirs).
      const out = path.resolve(process.env.INIT_CWD ?? process.cwd(), optional(values, "out") ?? `task-events-before-${before}.jsonl.gz`);
      return async (db) => {
        const { archiveEvents, ArchiveRefused } = await import("@/lib/events/archive");
        const { cliActor } = await import("./database");
        try {
          const r = await archiveEvents(db, { before, out, actor: await cliActor(db) });
          const range = r.months.length === 1 ? r.months[0] : `${r.months[0]} to ${r.months.at(-1)}`;
          return [
            `archived ${r.events} events of ${r.tasks} tasks (${range}) to ${out}`,
            `sha256 ${r.sha256}`,
            `dropped ${r.months.length} month partition${r.months.length === 1 ? "" : "s"}; each task's history records it (events_archived)`,
          ];
        } catch (error) {
          if (error instanceof ArchiveRefused) throw new CliError(error.message);
          throw error;
        }
      };
    },
  },
};
