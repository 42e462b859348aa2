import type { Standing } from "../core/standing";

// Who answers a question (API.md v1.2 "Asking a person"): a person — staff or a supervisor, in
// the UI — or a supervisor's token, and the operator at the CLI. Never an agent token; which
// questions each may answer is answerable.ts's rule. Pure: the machine test reads it.
export const ANSWERERS: readonly Standing[] = ["staff", "supervisor", "operator"];
