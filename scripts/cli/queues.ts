import type { Queue } from "@/db/schema";
import { CliError, usageError } from "./errors";
import { flag, integer, optional, parse, required, str, type Command, type Values } from "./flags";

// Queues from a shell, as a supervisor makes and keeps them on /queues: made on purpose
// (a task naming an unknown queue is refused), set, paused, archived and restored.

const SETTINGS_USAGE =
  "[--description D] [--lease-seconds S] [--max-failures F] [--expiry-threshold X] " +
  "[--claimants anyone|people|agents] [--max-attempt-seconds S|none] [--retry-delay-seconds D] [--lock-delay-seconds L] [--question-timeout-seconds Q] [--review none|agents|everyone] " +
  "[--person-idle-seconds I] [--person-grace-seconds G] [--max-renewals-without-progress N]";

const settingsOptions = {
  description: str, "lease-seconds": str, "max-failures": str, "expiry-threshold": str,
  claimants: str, "max-attempt-seconds": str, "retry-delay-seconds": str, "lock-delay-seconds": str, "question-timeout-seconds": str,
  review: str, "person-idle-seconds": str, "person-grace-seconds": str, "max-renewals-without-progress": str,
};

/** --paused / --resume as a boolean, or undefined when neither is given. */
function pausedFlag(values: Values): boolean | undefined {
  if (values.paused && values.resume) throw usageError("--paused and --resume contradict each other");
  return values.paused ? true : values.resume ? false : undefined;
}

function settings(values: Values) {
  return {
    description: optional(values, "description"),
    leaseSeconds: integer(values, "lease-seconds"),
    maxFailures: integer(values, "max-failures"),
    expiryThreshold: integer(values, "expiry-threshold"),
    retryDelaySeconds: integer(values, "retry-delay-seconds"),
    lockDelaySeconds: integer(values, "lock-delay-seconds"),
    questionTimeoutSeconds: integer(values, "question-timeout-seconds"),
    personIdleSeconds: integer(values, "person-idle-seconds"),
    personGraceSeconds: integer(values, "person-grace-seconds"),
    // 0 turns the demand for progress off (docs/leases.md).
    maxRenewalsWithoutProgress: integer(values, "max-renewals-without-progress"),
    claimants: optional(values, "claimants"),
    review: optional(values, "review"),
    // "none" lifts the ceiling.
    maxAttemptSeconds: optional(values, "max-attempt-seconds") === "none" ? null : integer(values, "max-attempt-seconds"),
  };
}

const FLAGS = { maxAttemptSeconds: "--max-attempt-seconds", retryDelaySeconds: "--retry-delay-seconds", lockDelaySeconds: "--lock-delay-seconds", questionTimeoutSeconds: "--question-timeout-seconds",
  personIdleSeconds: "--person-idle-seconds", personGraceSeconds: "--person-grace-seconds", maxRenewalsWithoutProgress: "--max-renewals-without-progress",
};

function summary(q: Queue): string {
  return (
    `queue ${q.name}: lease ${q.leaseSeconds} s, max failures ${q.maxFailures}, ` +
    `breaker after ${q.expiryThreshold} lease expiries in ${q.expiryWindowSeconds} s, ` +
    `claimants ${q.claimants}, attempt ceiling ${q.maxAttemptSeconds === null ? "none" : `${q.maxAttemptSeconds} s`}, ` +
    `retry delay ${q.retryDelaySeconds} s, lock delay ${q.lockDelaySeconds} s, question deadline ${q.questionTimeoutSeconds} s, ` +
    `person idle ${q.personIdleSeconds} s, person grace ${q.personGraceSeconds} s, review ${q.review}, ` +
    `renewals without progress ${q.maxRenewalsWithoutProgress === 0 ? "unlimited" : `at most ${q.maxRenewalsWithoutProgress}`}${q.paused ? ", paused" : ""}${q.archivedAt ? ", archived" : ""}`
  );
}

/** `queue archive` and `queue restore`: one flag, one engine call. */
function archiving(archive: boolean): Command {
  const verb = archive ? "archive" : "restore";
  return {
    usage: `queue ${verb} --name Q`,
    options: { name: str },
    async prepare(values) {
      const { queueInput } = await import("@/lib/tasks/model");
      const input = parse(queueInput, { queue: required(values, "name") }, { queue: "--name" });
      return async (db) => {
        const { archiveQueue, unarchiveQueue } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        await performAsCli(db, archive ? archiveQueue : unarchiveQueue, input);
        return [archive ? `archived queue ${input.queue}: no new tasks or claims; its history stays` : `restored queue ${input.queue}`];
      };
    },
  };
}

export const queueCommands: Record<string, Command> = {
  "queue create": {
    usage: `queue create --name Q ${SETTINGS_USAGE} [--paused]`,
    options: { name: str, ...settingsOptions, paused: flag },
    async prepare(values) {
      const { createQueueInput } = await import("@/lib/tasks/model");
      const input = parse(createQueueInput, { name: required(values, "name"), ...settings(values), paused: values.paused ? true : undefined }, FLAGS);
      return async (db) => {
        const { createQueue } = await import("@/lib/tasks");
        const { performAsCli } = await import("./database");
        return [summary(await performAsCli(db, createQueue, input))];
      };
    },
  },

  "queue set": {
    usage: `queue set --name Q ${SETTINGS_USAGE} [--paused | --resume]`,
    options: { name: str, ...settingsOptions, paused: flag, resume: flag },
    async prepare(values) {
      const paused = pausedFlag(values);
      const { queueSettingsInput } = await import("@/lib/tasks/model");
      const input = parse(queueSettingsInput, { queue: required(values, "name"), ...settings(values) }, { queue: "--name", ...FLAGS });
      return async (db) => {
        const { perform, setQueueSettings, setQueuePaused } = await import("@/lib/tasks");
        const { cliActor } = await import("./database");
        const actor = await cliActor(db);
        const result = await perform(setQueueSettings, input, { db, actor, standing: "operator" });
        if (!result.ok) throw new CliError(result.error.message);
        let q = result.value;
        if (paused !== undefined) {
          const pausing = await perform(setQueuePaused, { queue: input.queue, paused }, { db, actor, standing: "operator" });
          if (!pausing.ok) throw new CliError(pausing.error.message);
          q = pausing.value;
        }
        return [summary(q)];
      };
    },
  },

  "queue archive": archiving(true),
  "queue restore": archiving(false),
};
