import { ClaimboardApiError, type ClaimboardClient, type Task } from "@/lib/client";
import { renewAfterMs } from "@/lib/cadence";

// Over stdio the MCP server lives exactly as long as its client's connection, so it keeps
// the leases of the tasks its caller holds alive — a model need not babysit them. It
// renews each at a third of the lease, like the reference agent; when the client goes
// away the process exits and the leases lapse as a crashed agent's do.

const held = (task: Task) => task.status === "claimed" || task.status === "started";
/** The lease as of the server's answer, in ms: both timestamps come from the database clock. */
const leaseLeftMs = (task: Task) => (task.leaseUntil ? Date.parse(task.leaseUntil) - Date.parse(task.updatedAt) : 0);
const TRANSIENT = new Set(["busy", "rate_limited", "unavailable", "network_error"]);

export class LeaseKeeper {
  /** The caller's actor, learnt from the first task it claims. */
  private me: string | null = null;
  private readonly tasks = new Map<string, { task: Task; timer: NodeJS.Timeout }>();
  /**
   * Leases the server said had lapsed (lease_expired), by task: until someone claims the task
   * again (a new lease), it still reads as the caller's, started or claimed — expiry is lazy —
   * and must not be taken up again on every answer that shows it.
   */
  private readonly lapsed = new Map<string, string | null>();
  private stopped = false;
  /** Unread comments already logged (tellUnread). */
  private readonly told = new Set<string>();

  constructor(
    private readonly client: ClaimboardClient,
    private readonly log: (line: string) => void = () => {},
    /** The server refused the token itself (revoked, expired, its maker gone): nothing more to keep. */
    private readonly onUnauthorized: () => void = () => {},
  ) {}

  /** Tasks the keeper renews now (for tests and the exit message). */
  get heldIds(): string[] {
    return [...this.tasks.keys()];
  }

  /** A task the caller just claimed: its owner is the caller. */
  claimed(task: Task) {
    if (task.owner && held(task)) this.me ??= task.owner.id;
    this.observe(task);
  }

  /** Any task a call answered with: kept while the caller holds it, dropped when not. */
  observe(task: Task) {
    if (this.stopped) return;
    const current = this.tasks.get(task.id);
    if (current && task.version < current.task.version) return; // an answer older than what we know
    const mine = this.me !== null && task.owner?.id === this.me && held(task);
    if (mine && this.lapsed.has(task.id) && this.lapsed.get(task.id) === task.leaseUntil) return this.drop(task.id);
    this.lapsed.delete(task.id);
    if (!mine) return this.drop(task.id);
    if (current && current.task.leaseUntil === task.leaseUntil) {
      current.task = task; // same lease (e.g. a side effect recorded): the renewal stays as planned
      return;
    }
    this.schedule(task, Math.max(200, renewAfterMs(leaseLeftMs(task))));
  }

  stop() {
    this.stopped = true;
    for (const id of this.tasks.keys()) this.drop(id);
  }

  private schedule(task: Task, ms: number) {
    clearTimeout(this.tasks.get(task.id)?.timer);
    const timer = setTimeout(() => void this.renew(task.id), ms);
    timer.unref(); // never what keeps the process alive: stdin is
    this.tasks.set(task.id, { task, timer });
  }

  private drop(id: string) {
    const entry = this.tasks.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.tasks.delete(id);
  }

  /** Others' comments on a held task, logged once each: the model learns of them from task.unread on its own calls (docs/leases.md). */
  private tellUnread(task: Task) {
    for (const u of task.unread ?? []) {
      if (this.told.has(u.eventId)) continue;
      this.told.add(u.eventId);
      this.log(`[mcp] task ${task.id}: unread comment ${u.eventId} by ${u.by.name}: ${JSON.stringify(u.text.slice(0, 200))} (ack it before complete)`);
    }
  }

  private async renew(id: string) {
    const entry = this.tasks.get(id);
    if (!entry || this.stopped) return;
    try {
      const task = await this.client.heartbeat(entry.task);
      this.tellUnread(task);
      this.observe(task);
    } catch (error) {
      if (this.stopped || this.tasks.get(id) !== entry) return; // changed meanwhile: that answer decides
      if (error instanceof ClaimboardApiError && TRANSIENT.has(error.code)) {
        this.log(`[mcp] renewing task ${id}: ${error.code}; retrying`);
        return this.schedule(entry.task, 1000 * Math.max(1, error.retryAfter ?? 1));
      }
      const code = error instanceof ClaimboardApiError ? error.code : "error";
      if (code === "unauthorized") return this.onUnauthorized();
      this.log(`[mcp] stopped renewing task ${id}: ${code}`);
      if (code === "lease_expired") this.lapsed.set(id, entry.task.leaseUntil);
      this.drop(id);
      // A refusal says how the task is now (e.g. a version_conflict after a start we raced).
      if (error instanceof ClaimboardApiError && error.task) this.observe(error.task);
    }
  }
}
