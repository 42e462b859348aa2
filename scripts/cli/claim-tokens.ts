import { CliError, usageError } from "./errors";
import { integer, list, parse, type Action, type Command } from "./flags";

// `claim-token create`: a claim token (cbc_) for a task the caller holds, for a sub-process or
// a sub-agent (docs/security.md "Claim tokens"). Only the task's owner may mint one, so this
// command speaks to the server over HTTP as that owner — CLAIMBOARD_URL and CLAIMBOARD_TOKEN
// (the agent's token, or a claim token narrowing itself) — rather than to the database as the
// CLI's operator, who holds no task.

export const claimTokenCommands: Record<string, Command> = {
  "claim-token create": {
    usage: "claim-token create ID --version V [--ops read,progress,effects,complete,fail,release,comment,ask]   (CLAIMBOARD_URL, CLAIMBOARD_TOKEN)",
    options: { version: { type: "string" }, ops: { type: "string" } },
    positionals: true,
    async prepare(values, positionals) {
      const { claimTokenBody } = await import("@/lib/tasks/model");
      const { taskId } = await import("@/lib/tasks/model");
      if (positionals.length !== 1) throw usageError("claim-token create takes one task id");
      if (values.version === undefined) throw usageError("missing --version (the task's version you last saw)");
      const id = parse(taskId, positionals[0], {});
      const body = parse(claimTokenBody, { version: integer(values, "version"), ops: list(values, "ops") }, {});
      const token = process.env.CLAIMBOARD_TOKEN;
      const url = process.env.CLAIMBOARD_URL || `http://localhost:${process.env.PORT || 3000}`;
      if (!token) throw usageError("CLAIMBOARD_TOKEN must be the token of the task's owner (the claim token is minted as it)");
      if (!URL.canParse(url)) throw usageError(`CLAIMBOARD_URL is not a URL: ${JSON.stringify(url)}`);
      const action: Action = async () => {
        const { ClaimboardApiError, ClaimboardClient } = await import("@/lib/client");
        try {
          const made = await new ClaimboardClient({ baseUrl: url, token }).createClaimToken({ id, version: body.version }, body.ops);
          // The secret goes last and alone, so `… | tail -1` captures it.
          return [`claim token for task ${made.taskId} attempt ${made.attempt} (${made.ops.join(", ")}); it is shown only this once:`, made.claimToken];
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
