import type { z } from "zod";

/** An expected failure: printed as one `error: …` line, exit code 1 (2 for a usage mistake). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(`${message} (see --help)`, 2);

const toFlag = (field: string) => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** zod's generic phrasing, said the way the rest of our messages are. */
const plainer = (message: string) =>
  message
    .replace(/^Invalid input: /, "")
    .replace(/Too big: expected \w+ to be <=?\s*(\S+)/, "must be at most $1")
    .replace(/Too small: expected \w+ to be >=?\s*(\S+)/, "must be at least $1")
    .replace(/expected record, received \w+/, "must be a JSON object")
    .replace(/expected (\w+), received (\w+)/, "must be a $1, not $2");

/**
 * A failed zod parse as one line naming the flag, e.g. "--priority must be at most 1000".
 * `flags` renames fields whose flag is not simply the kebab-case of the field.
 */
export function invalidInput(error: z.ZodError, flags: Record<string, string> = {}): CliError {
  const issue = error.issues[0];
  if (!issue) return new CliError("invalid input");
  const [top, ...rest] = issue.path.map(String);
  const where = top === undefined ? "input" : (flags[top] ?? toFlag(top)) + rest.map((p) => `.${p}`).join("");
  return new CliError(`${where} ${plainer(issue.message)}`);
}

/** Any message on one line: no stack traces, no multi-line driver errors. */
export const oneLine = (message: string) => message.replace(/\s*\n\s*/g, " ").trim();

/** The innermost message of a (possibly wrapped) driver error, on one line. */
export function describe(error: unknown): string {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error && e.cause instanceof Error; depth++) e = e.cause;
  return oneLine(e instanceof Error ? e.message : String(e));
}

