// The input limits of the contract, once. The engine's schemas (lib/tasks/core/schemas.ts) enforce
// them; the forms (maxLength, counters, sentences) and the MCP tools' descriptions read them
// here, so a limit changed in one place is changed everywhere it is said. Pure: safe in the
// browser.

export const LIMITS = {
  title: 200,
  description: 10_000,
  /** A failure's reason, a supervisor's note, a side effect's description. */
  reason: 2000,
  handoffSummary: 2000,
  /** A reviewer's note (a reject's is the next claimant's hand-off). */
  reviewNote: 2000,
  handoffNext: 2000,
  artifact: 500,
  artifacts: 20,
  comment: 4000,
  idempotencyKey: 200,
  /** The effect ledger: an effect's name and key, its target, a resolution's external reference. */
  effectName: 200,
  effectKey: 200,
  effectTarget: 500,
  externalRef: 500,
  /** Asking a person (docs/questions.md): a question, each of its choices, how many, an answer. */
  question: 2000,
  questionChoice: 200,
  questionChoices: 10,
  answer: 4000,
  /** How long a question waits for its answer (queue setting questionTimeoutSeconds, or the ask's timeoutSeconds). */
  questionTimeoutSeconds: { min: 60, max: 604_800 },
  /** The longest long-poll of GET …/questions/{qid}?wait= (and of the MCP tool ask_human). */
  questionWaitSeconds: 60,
  /** The longest wait of a claim for work (POST /claims, /claims/batch, a completion's next: `wait`). */
  claimWaitSeconds: 60,
  /** Dependencies one request may add (and a create may name). */
  dependencies: 50,
  /** Tasks in one batch claim or one batch completion. */
  batch: 100,
  queueName: 64,
  queueDescription: 500,
  search: 200,
  scheduleName: 100,
  webhookUrl: 2000,
  webhookDescription: 500,
  /** Event types (or queues) one webhook may name. */
  webhookFilter: 50,
  priority: { min: -1000, max: 1000 },
  leaseSeconds: { min: 5, max: 3600 },
  maxAttemptSeconds: { min: 60, max: 604_800 },
  /** After an unclean lapse, how long nobody may claim the task (queue setting lockDelaySeconds). */
  lockDelaySeconds: { min: 0, max: 3600 },
  /** How long a person may be away from the app while their leases are still renewed (queue setting personIdleSeconds; 0: the lease alone). */
  personIdleSeconds: { min: 0, max: 86_400 },
  /** After a person's lease lapses, how long agents may not claim the task (queue setting personGraceSeconds). */
  personGraceSeconds: { min: 0, max: 3600 },
  /** The steps of one attempt's checkpoints (docs/checkpoints.md); the state is JSON of at most 64 KiB. */
  checkpointStep: { min: 1, max: 200 },
  /**
   * The longest a task parked on a question keeps what it reserves (docs/reservations.md): its
   * question may wait days; the files it reserved are released after this, for other work.
   */
  parkedReservationHoldSeconds: 3600,
  /** Renewals in a row without progress an attempt may make before the next is refused (queue setting maxRenewalsWithoutProgress; 0: off). */
  maxRenewalsWithoutProgress: { min: 0, max: 10_000 },
} as const;

/** "4,000": how a limit is written in a sentence. */
export const limitText = (n: number) => n.toLocaleString("en");
