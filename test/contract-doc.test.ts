import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { endpoints } from "@/lib/http/endpoints";
import { STATUS_OF } from "@/lib/http/errors";
import { taskObject } from "@/lib/http/wire";
import { tools } from "@/lib/mcp/tools";
import { readinessCodes } from "@/lib/tasks/claiming/readiness-codes";
import { EVENT_TYPES } from "@/lib/tasks/core/machine-events";

// docs/contract.md is true of the code in one direction: everything the server serves is in
// it — each endpoint of the registry, each error code with its status, each event type, each
// MCP tool, each readiness code and each field of the task object. (The other direction, what
// the contract promises and the server does, is test/http/contract*.test.ts over real HTTP;
// v1.3's section is written ahead of the code, so it is not checked against it here.)

const contract = readFileSync(path.resolve(import.meta.dirname, "../docs/contract.md"), "utf8");
const section = (heading: string) => {
  const start = contract.indexOf(`\n## ${heading}`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = contract.indexOf("\n## ", start + 1);
  return contract.slice(start, end === -1 ? undefined : end);
};
const spans = (text: string) => new Set([...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
const named = spans(contract);

test("every endpoint of the registry is in the contract, by method and path", () => {
  const missing = Object.values(endpoints)
    .map((e) => `${e.method} ${e.path}`)
    .filter((call) => ![...named].some((span) => span === call || span.startsWith(`${call}?`)));
  expect(missing).toEqual([]);
});

test("every error code is in the error table with its status", () => {
  const errors = section("v1: claim, hold, finish");
  const wrong = Object.entries(STATUS_OF).filter(([code, status]) => {
    const inTable = new RegExp(`^\\| \`${code}\` \\| ${status} \\|`, "m").test(errors);
    return !inTable && !errors.includes(`${status} \`${code}\``);
  });
  expect(wrong).toEqual([]);
});

test("every event type is in the table of event types", () => {
  const types = spans(section("Event types"));
  expect(EVENT_TYPES.filter((type) => !types.has(type))).toEqual([]);
});

test("every MCP tool, readiness code and task field is named", () => {
  expect(tools.map((t) => t.name).filter((name) => !named.has(name))).toEqual([]);
  expect(readinessCodes.filter((code) => !named.has(code))).toEqual([]);
  const fields = Object.keys(taskObject.shape);
  expect(fields.filter((field) => !new RegExp(`\\b${field}\\b`).test(contract))).toEqual([]);
});
