import type { Standing } from "../core/standing";

// Who answers a question (docs/contract.md#asking-a-person): a person — staff or a supervisor, in
// the UI — or a supervisor's token, and the operator at the CLI. Never an agent token, and never
// the one who asked (403 self_review, decided in answerQuestion). Pure: the machine test reads it.
export const ANSWERERS: readonly Standing[] = ["staff", "supervisor", "operator"];
