import { CliError, usageError } from "./errors";
import { integer, optional, parse, required, str, type Command } from "./flags";
import { row } from "./escape";

// The effect ledger and fences from a shell (docs/effects.md, docs/fences.md), as the one
// `cli` actor with the operator's standing: an operator may resolve an unknown effect as a
// supervisor does; an intended one only its attempt may.

const one = (positionals: string[], command: string, what = "task id") => {
  if (positionals.length !== 1) throw usageError(`${command} takes one ${what}`);
  return positionals[0]!;
};

export const effectCommands: Record<string, Command> = {
  "effect list": {
    usage: "effect list ID",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      const { listEffectsInput } = await import("@/lib/tasks/model");
      const input = parse(listEffectsInput, { taskId: one(positionals, "effect list") }, { taskId: "ID" });
      return async (db) => {
        const { taskEffectsList } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const effects = await performAsCli(db, taskEffectsList, input);
        if (effects.length === 0) return [`task ${input.taskId} has no effects`];
        return effects.map((e) => row([e.id, e.state, `attempt ${e.attempt}`, e.idempotencyKey, e.name, e.externalRef ?? ""]));
      };
    },
  },

  "effect resolve": {
    usage: "effect resolve ID --effect E --version V --state applied|failed [--ref EXTERNAL-REF] [--note N]",
    options: { effect: str, version: str, state: str, ref: str, note: str },
    positionals: true,
    async prepare(values, positionals) {
      const { resolveEffectInput } = await import("@/lib/tasks/model");
      if (values.version === undefined) throw usageError("missing --version (the task's version you last saw)");
      const input = parse(resolveEffectInput, {
        taskId: one(positionals, "effect resolve"),
        effectId: required(values, "effect"),
        version: integer(values, "version"),
        state: required(values, "state"),
        externalRef: optional(values, "ref"),
        note: optional(values, "note"),
      }, { taskId: "ID", effectId: "--effect", externalRef: "--ref" });
      return async (db) => {
        const { resolveEffect } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const { effect } = await performAsCli(db, resolveEffect, input);
        return [`effect ${effect.id} of task ${input.taskId} is ${effect.state}`];
      };
    },
  },

  "fence verify": {
    usage: "fence verify FENCE   (exit 0 only when the fence's attempt holds its task now)",
    options: {},
    positionals: true,
    async prepare(_values, positionals) {
      const { verifyFenceInput } = await import("@/lib/tasks/model");
      const input = parse(verifyFenceInput, { fence: one(positionals, "fence verify", "fence") }, { fence: "FENCE" });
      return async (db) => {
        const { verifyFence } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        const v = await performAsCli(db, verifyFence, input);
        const line = `task ${v.taskId} attempt ${v.attempt} (current attempt ${v.currentAttempt}, ${v.status}): ${v.reason}`;
        if (!v.current) throw new CliError(`not current: ${line}`);
        return [`current: ${line}`];
      };
    },
  },
};
