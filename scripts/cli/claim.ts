import { CliError, usageError } from "./errors";
import { cell } from "./escape";
import { flag, integer, optional, parse, str, type Action, type Command } from "./flags";

// `task claim`: claims the next task of a queue as an agent does — over HTTP, as CLAIMBOARD_TOKEN
// (a claim is an agent's act; the CLI's operator holds no lease). With --wait S the server
// holds the request until a task is claimable or S seconds pass (docs/claiming.md "Waiting for
// work"): a shell loop waits for work without polling.

export const claimCommands: Record<string, Command> = {
  "task claim": {
    usage: "task claim [--queue Q] [--wait S] [--start] [--lease-seconds N]   (CLAIMBOARD_URL, CLAIMBOARD_TOKEN)",
    options: { queue: str, wait: str, start: flag, "lease-seconds": str },
    async prepare(values) {
      const { claimNextInput } = await import("@/lib/tasks/model");
      const body = parse(claimNextInput, {
        queue: optional(values, "queue"),
        wait: integer(values, "wait"),
        leaseSeconds: integer(values, "lease-seconds"),
        start: values.start === true ? true : undefined,
      });
      const token = process.env.CLAIMBOARD_TOKEN;
      const url = process.env.CLAIMBOARD_URL || `http://localhost:${process.env.PORT || 3000}`;
      if (!token) throw usageError("CLAIMBOARD_TOKEN must be the claiming agent's token");
      if (!URL.canParse(url)) throw usageError(`CLAIMBOARD_URL is not a URL: ${JSON.stringify(url)}`);
      const action: Action = async () => {
        const { ClaimboardApiError, ClaimboardClient } = await import("@/lib/client");
        try {
          const task = await new ClaimboardClient({ baseUrl: url, token }).claimNext(body);
          const queue = body.queue ?? "default";
          if (!task) return [`nothing claimable in ${cell(queue)}${body.wait ? ` (waited ${body.wait} s)` : ""}`];
          // The id first and alone on its line's start, so `… | cut -d' ' -f2` takes it.
          return [`task ${task.id} version ${task.version} ${task.status}: ${cell(task.title)}`];
        } catch (error) {
          if (error instanceof ClaimboardApiError) throw new CliError(`${error.code}: ${error.message}`);
          throw error;
        }
      };
      action.overHttp = true;
      return action;
    },
  },
};
