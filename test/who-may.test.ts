import { describe, expect, test } from "vitest";
import type { z } from "zod";
import { tokenRole } from "@/db/schema";
import * as tasks from "@/lib/tasks";
import type { Operation } from "@/lib/tasks/core/engine";
import { MOVES, type MoveName } from "@/lib/tasks/core/machine";
import { EVERYONE, mayMake, personRoles, STANDINGS, SUPERVISORS, tokenRoles, WORKERS } from "@/lib/tasks/core/standing";
import { claim, requeue } from "@/lib/tasks";
import { operationOf, rolesOf } from "@/lib/http/access";
import { endpoints, type EndpointId } from "@/lib/http/endpoints";
import { operationAction } from "@/lib/auth/action";

// Who may is said once: the machine's move names its relation, an operation that makes the
// move takes its standings from it (defineOperation's `makes`), an endpoint that runs an
// operation publishes the tokens those standings admit (lib/http/access.ts), a server action
// the people they admit (lib/auth/action.ts). This checks the derivation reaches everything —
// every caller's move has an operation, every write an operation — and that only a read
// that runs none states its roles.

const operations = Object.values(tasks as Record<string, unknown>).filter((v): v is Operation<z.ZodType, unknown> =>
  typeof v === "object" && v !== null && "who" in v && "run" in v && "name" in v);
const moves = Object.keys(MOVES) as MoveName[];

describe("a move's who is its operation's", () => {
  test.each(moves)("%s", (move) => {
    const makers = operations.filter((op) => op.makes?.includes(move));
    if (MOVES[move].who === "system") {
      expect(makers.map((op) => op.name), `${move} is the system's: no operation makes it for a caller`).toEqual([]);
      expect(() => mayMake(move)).toThrow(/system's move/);
      return;
    }
    expect(makers.length, `${move} needs an operation that names it in makes`).toBeGreaterThan(0);
    for (const op of makers) expect(op.who, `${op.name}'s who is its moves'`).toEqual(mayMake(...op.makes!));
  });

  test("an operation making several moves admits only who may make them all", () => {
    expect(mayMake("edit", "requeue")).toEqual(SUPERVISORS);
    expect(mayMake("complete", "claim")).toEqual(WORKERS);
    expect(tasks.requeueTo.who).toEqual(SUPERVISORS);
  });
});

describe("an endpoint's roles are its operation's", () => {
  test.each(Object.keys(endpoints) as EndpointId[])("%s", (id) => {
    const endpoint = endpoints[id] as { roles?: unknown; method: string };
    const op = operationOf(id);
    if (op) {
      expect(endpoint.roles, `${id} runs ${op.name}: the registry states no roles for it`).toBeUndefined();
      expect(rolesOf(endpoints[id])).toEqual(tokenRoles(op.who));
      return;
    }
    expect(endpoint.method, `${id} writes, so it runs an operation (lib/http/access.ts)`).toBe("GET");
    expect(endpoint.roles, `${id} runs no operation: the registry states its roles`).toBeDefined();
  });

  test("the standings map onto the token roles as the roles always read", () => {
    expect(tokenRoles(EVERYONE)).toEqual(["observer", "agent", "supervisor"]);
    expect([...tokenRoles(STANDINGS)].sort()).toEqual([...tokenRole.enumValues].sort());
    expect(tokenRoles(WORKERS)).toEqual(["agent", "supervisor"]);
    expect(tokenRoles(SUPERVISORS)).toEqual(["supervisor"]);
    expect(tokenRoles(mayMake("answer"))).toEqual(["supervisor"]);
  });
});

describe("a server action's people are its operation's", () => {
  test("personRoles of the groups", () => {
    expect(personRoles(WORKERS)).toEqual(["staff", "supervisor"]);
    expect(personRoles(SUPERVISORS)).toEqual(["supervisor"]);
  });

  test("an action naming other people than its operation admits fails as its module loads", () => {
    expect(() => operationAction("supervisor", claim)).toThrow(/admits staff, supervisor/);
    expect(() => operationAction("staff", requeue)).toThrow(/admits supervisor/);
    expect(() => operationAction("staff", claim)).not.toThrow();
  });
});
