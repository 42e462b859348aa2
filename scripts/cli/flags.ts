import type { ParseArgsConfig } from "node:util";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { CliError, invalidInput, usageError } from "./errors";

// The pieces every command is made of: its flags, read and checked before any database is touched.

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;
/** The work of a command once its input is valid: returns the lines to print. */
export type Action = ((db: Db) => Promise<string[]>) & {
  /** Speaks to the server (CLAIMBOARD_URL) as a token's holder instead of the database: no database is opened. */
  overHttp?: true;
};

export interface Command {
  usage: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Takes positional arguments (e.g. `task readiness ID`). */
  positionals?: boolean;
  prepare(values: Values, positionals: string[]): Promise<Action>;
}

export const str = { type: "string" } as const;
export const flag = { type: "boolean" } as const;

/** "4,7" → ["4", "7"]; the schema then checks each id. */
export function list(values: Values, name: string): string[] | undefined {
  const value = optional(values, name);
  return value === undefined ? undefined : value.split(",").map((id) => id.trim()).filter((id) => id !== "");
}

export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== "string") throw usageError(`missing --${name}`);
  return value;
}

export function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function integer(values: Values, name: string): number | undefined {
  const value = optional(values, name);
  if (value === undefined) return undefined;
  if (!/^\s*[+-]?\d+\s*$/.test(value)) throw new CliError(`--${name} must be a whole number, not ${JSON.stringify(value)}`);
  return Number(value);
}

/** A number flag (amounts may have decimals); zod then says what range it must be in. */
export function decimal(values: Values, name: string): number | undefined {
  const value = optional(values, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new CliError(`--${name} must be a number, not ${JSON.stringify(value)}`);
  return n;
}

export function json(values: Values, name: string): unknown {
  const value = optional(values, name);
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new CliError(`--${name} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function parse<S extends z.ZodType>(schema: S, input: unknown, flags?: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInput(parsed.error, flags);
  return parsed.data;
}
