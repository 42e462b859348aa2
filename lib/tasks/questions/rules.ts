import { mayMake } from "../core/standing";

// Who answers a question (docs/contract.md#asking-a-person): the machine's `person` for the answer
// move — staff or a supervisor, in the UI — or a supervisor's token, and the operator at the CLI.
// Never an agent token; which questions each may answer is answerable.ts's rule.
export const ANSWERERS = mayMake("answer");

/**
 * The asker's side of a question: the one who asked, or whoever holds its task now. They may
 * not answer it (403 self_review, answerQuestion); the attention read leaves it out the same way.
 */
export const asksItself = (question: { askedBy: { id: string } }, ownerId: string | null | undefined, actorId: string) =>
  question.askedBy.id === actorId || ownerId === actorId;
