import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { rolesOf } from "@/lib/http/access";
import { endpoints } from "@/lib/http/endpoints";
import { limits } from "@/lib/http/rate-limit";
import { roleAccess, limitLines } from "./security";

// The reference's security text is made from the registry and the limits module, not typed:
// it said "agent and supervisor tokens may call everything below" while the supervisors' API
// refused agents, and "limits are kept in each process's memory" after they moved to PostgreSQL.

const all = Object.values(endpoints);

test("each role is told exactly the endpoints the registry gives it", () => {
  const access = roleAccess();
  for (const role of ["agent", "observer", "supervisor"] as const) {
    const expected = all.filter((e) => { const roles = rolesOf(e); return roles !== "public" && roles.includes(role); }).map((e) => `${e.method} ${e.path}`).sort();
    expect(access[role].allowed.map((e) => `${e.method} ${e.path}`).sort()).toEqual(expected);
    expect(access[role].allowed.length + access[role].refused.length).toBe(all.filter((e) => rolesOf(e) !== "public").length);
  }
  expect(access.public.map((e) => e.path).sort()).toEqual(all.filter((e) => rolesOf(e) === "public").map((e) => e.path).sort());
});

test("the limits are today's numbers, and no sentence claims what the code does not do", () => {
  const text = limitLines().join("\n");
  expect(text).toContain(String(limits().perToken.perSecond));
  expect(text).toContain(String(limits().perToken.capacity));
  const page = readFileSync(path.resolve(import.meta.dirname, "page.tsx"), "utf8");
  expect(page).not.toMatch(/may call everything below/);
  expect(page).not.toMatch(/kept in each server process/);
});
