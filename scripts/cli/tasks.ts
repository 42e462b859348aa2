import { usageError } from "./errors";
import { decimal, integer, json, optional, parse, required, str, type Command } from "./flags";
import { row } from "./escape";

// Tasks from a shell beyond create: find them (the board's search), fix a typo in one, leave
// a note on one — as the one `cli` actor, through the same engine calls as the API. The CLI
// is an operator's tool with the database's own credentials, so an edit is a supervisor's
// (any task), never the creator-or-last-holder rule of staff and agents.

const one = (positionals: string[], command: string) => {
  if (positionals.length !== 1) throw usageError(`${command} takes one task id`);
  return positionals[0]!;
};

export const taskCommands: Record<string, Command> = {
  "task list": {
    usage: "task list [--q TEXT] [--status S] [--queue Q] [--sort priority|created|updated] [--limit N]",
    options: { q: str, status: str, queue: str, sort: str, limit: str },
    async prepare(values) {
      const { listTasksQuery } = await import("@/lib/tasks/model");
      const limit = integer(values, "limit");
      const query = parse(listTasksQuery, {
        q: optional(values, "q"),
        status: optional(values, "status"),
        queue: optional(values, "queue"),
        sort: optional(values, "sort"),
        limit: limit === undefined ? undefined : String(limit),
      });
      return async (db) => {
        const { listTasks } = await import("@/lib/tasks");
        const { cliActor } = await import("./database");
        const page = await listTasks(db, query, await cliActor(db));
        const lines = page.items.map((t) => row([t.id, t.status, t.queue, String(t.priority), t.title]));
        if (page.nextCursor) lines.push(`… more: narrow the search or raise --limit (at most 100)`);
        return lines;
      };
    },
  },

  "task edit": {
    usage: "task edit ID --version V [--title T] [--description D] [--priority P] [--payload JSON]",
    options: { version: str, title: str, description: str, priority: str, payload: str },
    positionals: true,
    async prepare(values, positionals) {
      const { editTaskInput } = await import("@/lib/tasks/model");
      const taskId = one(positionals, "task edit");
      if (values.version === undefined) throw usageError("missing --version (the version you last saw: task list, or the board)");
      const input = parse(editTaskInput, {
        taskId,
        version: integer(values, "version"),
        title: optional(values, "title"),
        description: optional(values, "description"),
        priority: integer(values, "priority"),
        payload: json(values, "payload"),
      }, { taskId: "ID" });
      return async (db) => {
        const { editTask } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const task = await performAsCli(db, editTask, input);
        return [`task ${task.id} is at version ${task.version}`];
      };
    },
  },

  "task comment": {
    usage: "task comment ID --body TEXT",
    options: { body: str },
    positionals: true,
    async prepare(values, positionals) {
      const { commentInput } = await import("@/lib/tasks/model");
      const input = parse(commentInput, { taskId: one(positionals, "task comment"), body: required(values, "body") }, { taskId: "ID" });
      return async (db) => {
        const { addComment } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        await performAsCli(db, addComment, input);
        return [`commented on task ${input.taskId}`];
      };
    },
  },

  "task review": {
    usage: "task review ID --version V --decision approve|reject --digest SHA256 [--note N]",
    options: { version: str, decision: str, digest: str, note: str },
    positionals: true,
    async prepare(values, positionals) {
      const { reviewInput } = await import("@/lib/tasks/model");
      if (values.version === undefined) throw usageError("missing --version (the version you last saw: task list, or the board)");
      const input = parse(reviewInput, {
        taskId: one(positionals, "task review"),
        version: integer(values, "version"),
        decision: required(values, "decision"),
        digest: required(values, "digest"),
        note: optional(values, "note"),
      }, { taskId: "ID" });
      return async (db) => {
        const { review } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        // The engine decides who may review (not the submitter, not a holder): the CLI says its refusal as is.
        const task = await performAsCli(db, review, input);
        return [`task ${task.id} is ${task.status} at version ${task.version}`];
      };
    },
  },

  "task raise-budget": {
    usage: "task raise-budget ID --version V --add AMOUNT",
    options: { version: str, add: str },
    positionals: true,
    async prepare(values, positionals) {
      const { raiseBudgetInput } = await import("@/lib/tasks/model");
      if (values.version === undefined) throw usageError("missing --version (the version you last saw: task list, or the board)");
      const input = parse(raiseBudgetInput, { taskId: one(positionals, "task raise-budget"), version: integer(values, "version"), add: decimal(values, "add") }, { taskId: "ID" });
      return async (db) => {
        const { raiseBudget } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const task = await performAsCli(db, raiseBudget, input);
        return [`task ${task.id} is ${task.status} at version ${task.version}: budget ${task.budget?.limit} ${task.budget?.unit}, ${task.spent} spent`];
      };
    },
  },
};
