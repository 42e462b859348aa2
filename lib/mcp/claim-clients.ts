import { ClaimboardApiError, ClaimboardClient, type ClaimOp, type Task } from "@/lib/client";
import { CLAIM_OPS } from "@/lib/tasks/model";

// The stdio server's claim tokens (docs/mcp.md "Claim tokens"), when CLAIMBOARD_CLAIM_TOKENS
// asks for them: for every task its caller claims, the server mints a claim token (cbc_) bound
// to that task's attempt, and each tool call naming that task goes with it rather than with
// the agent token. A call on a task the caller holds can then do no more than the ops
// allowed, and nothing at all once the attempt has ended (claim_ended) — whatever the model
// was talked into. Claims, creates and reads of other tasks keep the agent token.

const held = (task: Task) => task.status === "claimed" || task.status === "started";

/** CLAIMBOARD_CLAIM_OPS, "read,progress,…": the ops each claim token gets (default all); null when it names an unknown op. */
export function parseClaimOps(value: string | undefined): ClaimOp[] | null {
  if (value === undefined || value.trim() === "") return [...CLAIM_OPS];
  const ops = value.split(",").map((op) => op.trim()).filter(Boolean);
  return ops.every((op) => (CLAIM_OPS as readonly string[]).includes(op)) && ops.length > 0 ? [...new Set(ops)] as ClaimOp[] : null;
}

export class ClaimClients {
  private readonly byTask = new Map<string, { attempt: number; client: Promise<ClaimboardClient | null> }>();

  constructor(
    private readonly agent: ClaimboardClient,
    /** A client for the same server with another bearer token. */
    private readonly withToken: (token: string) => ClaimboardClient,
    private readonly ops: ClaimOp[],
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Tasks a claim token is held for (tests, diagnostics). */
  get taskIds(): string[] {
    return [...this.byTask.keys()];
  }

  /** A task the caller just claimed (or any answer about a task): mint for a new holding, forget an ended one. */
  observe(task: Task, claimed: boolean) {
    const known = this.byTask.get(task.id);
    if (known && (known.attempt !== task.attempt || !held(task))) this.byTask.delete(task.id);
    if (!claimed || !held(task) || this.byTask.has(task.id)) return;
    const client = this.agent.createClaimToken(task, this.ops).then(
      (made) => this.withToken(made.claimToken),
      (error: unknown) => {
        // No claim token: calls on this task go with the agent token, as without the option.
        this.log(`[mcp] no claim token for task ${task.id}: ${error instanceof ClaimboardApiError ? error.code : String(error)}`);
        return null;
      },
    );
    this.byTask.set(task.id, { attempt: task.attempt, client });
  }

  /** The client a tool call naming `id` goes with: the task's claim token's, or null for the agent's. */
  async clientFor(id: string): Promise<ClaimboardClient | null> {
    return (await this.byTask.get(id)?.client) ?? null;
  }

  /** The claim token of `id` was refused as ended: the next call on it goes with the agent token (and hears why). */
  ended(id: string) {
    this.byTask.delete(id);
  }
}
