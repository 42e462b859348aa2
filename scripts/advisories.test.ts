import { expect, test } from "vitest";
import { auditVerdict } from "./advisories";

// CI's dependency advisory check (.ci/run, docs/security.md): `npm audit --omit=dev --json`
// fails the run on a high or critical advisory when the registry answers, and only says so
// when it does not (no registry, a proxy that refuses the bulk endpoint): never a red CI for that.

const answered = (counts: Record<string, number>) =>
  JSON.stringify({ auditReportVersion: 2, vulnerabilities: {}, metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0, ...counts } } });

test("an answer with no high or critical advisory passes, and says how many of the rest", () => {
  expect(auditVerdict(answered({ low: 2, moderate: 1, total: 3 }))).toEqual({ fail: false, line: "npm audit --omit=dev: 0 critical, 0 high, 1 moderate, 2 low" });
});

test("a high or critical advisory fails", () => {
  expect(auditVerdict(answered({ high: 1, total: 1 }))).toMatchObject({ fail: true });
  expect(auditVerdict(answered({ critical: 2, total: 2 }))).toMatchObject({ fail: true });
});

test("no answer from the registry (an error, a 405 from a proxy, nothing at all) is a notice, not a failure", () => {
  const proxied = JSON.stringify({ message: "405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk", statusCode: 405, error: { summary: "" } });
  for (const output of [proxied, JSON.stringify({ error: { code: "ENOTFOUND", summary: "getaddrinfo ENOTFOUND" } }), "", "not json"]) {
    const verdict = auditVerdict(output);
    expect(verdict.fail).toBe(false);
    expect(verdict.line).toMatch(/registry did not answer/);
  }
});
