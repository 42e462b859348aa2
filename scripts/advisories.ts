// CI's dependency advisory check (.ci/run; docs/security.md "Dependency advisories"): reads
// `npm audit --omit=dev --json` on stdin. A registry that answers with a high or critical
// advisory for a production dependency fails the run; one that does not answer (offline, a
// proxy refusing the bulk advisory endpoint) is reported and passes — never a red CI for that.
import { readFileSync } from "node:fs";

type Counts = Partial<Record<"info" | "low" | "moderate" | "high" | "critical", number>>;

export function auditVerdict(output: string): { fail: boolean; line: string } {
  type Report = { metadata?: { vulnerabilities?: Counts }; error?: unknown; message?: string };
  let report: Report | null;
  try {
    report = output.trim() ? (JSON.parse(output) as Report) : null;
  } catch {
    report = null;
  }
  const counts = report?.metadata?.vulnerabilities;
  if (!counts || report?.error) {
    const why = report?.message ?? (report?.error as { summary?: string } | undefined)?.summary ?? "no report";
    return { fail: false, line: `npm audit --omit=dev: the registry did not answer (${why || "no detail"}); advisory check skipped — see docs/security.md` };
  }
  const n = (key: keyof Counts) => counts[key] ?? 0;
  const line = `npm audit --omit=dev: ${n("critical")} critical, ${n("high")} high, ${n("moderate")} moderate, ${n("low")} low`;
  return { fail: n("critical") + n("high") > 0, line };
}

if (process.argv[1]?.endsWith("advisories.ts")) {
  const verdict = auditVerdict(readFileSync(0, "utf8"));
  console.log(verdict.line);
  process.exit(verdict.fail ? 1 : 0);
}
