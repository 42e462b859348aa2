import { expect } from "vitest";
import { createTask, setQueueSettings } from "@/lib/tasks";
import type { RunningAgent } from "@/test/cli";
import { tableCursors } from "@/test/realtime/helpers";
import { openEventStream, type SseClient, type SseMessage } from "@/test/sse";
import { expectLogEqualsTable, sleep, waitFor, type Rig } from "./harness";
import { makeQueue } from "@/test/queues";

// Faults 3 and 4: a run of 8 reference agents working a queue while 2 SSE clients watch it,
// with a fault injected from outside in the middle. The promises checked at the end are the
// same for both: no task lost, none stuck claimed, every transition recorded, every client
// holding every event.

/**
 * An event stream that, like EventSource, reconnects with Last-Event-ID whenever the server
 * ends it or cannot be reached, and keeps every message of every connection in order.
 */
export class ResumingStream {
  readonly messages: SseMessage[] = [];
  connections = 0;
  failedOpens = 0;
  private current: SseClient | null = null;
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(private readonly url: string, private readonly token: string, private lastId: string) {
    this.loop = this.run();
  }

  private async run() {
    while (!this.stopped) {
      let client: SseClient;
      try {
        client = await openEventStream(this.url, { token: this.token, lastEventId: this.lastId });
      } catch {
        this.failedOpens++;
        await sleep(250);
        continue;
      }
      this.connections++;
      this.current = client;
      await client.ended;
      this.messages.push(...client.messages);
      this.lastId = client.lastEventId() ?? this.lastId;
      this.current = null;
      if (!this.stopped) await sleep(250); // an EventSource's reconnection delay, about
    }
  }

  /** Every message so far, the open connection's included. */
  ids(): string[] {
    return [...this.messages, ...(this.current?.messages ?? [])].map((m) => m.id);
  }

  async close() {
    this.stopped = true;
    this.current?.close();
    await this.loop;
  }
}

export interface Fleet {
  queue: string;
  agents: RunningAgent[];
  streams: ResumingStream[];
  done(): Promise<number>;
  /** Waits for every task done, stops the agents, checks the promises; returns figures. */
  finish(): Promise<{ reclaimed: number; agentRetries: number; agentLost: number; gaveUp: number; timedOut: number; connections: number[] }>;
}

export async function startFleet(r: Rig, queue: string, { tasks = 48, agents = 8, workMs = 400 } = {}): Promise<Fleet> {
  await makeQueue(r.database.db, queue);
  await r.as(setQueueSettings, { queue, leaseSeconds: 5 });
  for (let i = 0; i < tasks; i++) await r.as(createTask, { title: `${queue} ${i}`, queue });
  const observer = await r.token(`${queue}-observer`, "observer");
  const streamUrl = `${r.server.url}/api/v1/events?queue=${queue}`;
  const streams = [new ResumingStream(streamUrl, observer.token, "0:0"), new ResumingStream(streamUrl, observer.token, "0:0")];
  const running: RunningAgent[] = [];
  for (let i = 0; i < agents; i++) {
    running.push(r.agent(await r.token(`${queue}-agent-${i}`), ["--queue", queue, "--work-ms", String(workMs)]));
  }
  const done = async () => {
    const [row] = await r.database.client`SELECT count(*)::int AS n FROM tasks WHERE queue = ${queue} AND status = 'done'`;
    return row!.n as number;
  };
  return {
    queue,
    agents: running,
    streams,
    // Reads may meet a database that is away: not done yet.
    done: () => done().catch(() => -1),
    async finish() {
      await waitFor(async () => (await done().catch(() => -1)) === tasks, `all ${tasks} tasks of ${queue} done`, 180_000, 250);
      // The reference agent retries an owner call through 503s for as long as its lease could
      // last, then lets the task go and carries on; an agent that still exits is printed and
      // counted, not failed — the promises are about the tasks, which its lease hands on.
      const gaveUp = running.filter((a) => a.process.exitCode !== null).length;
      for (const a of running.filter((x) => x.process.exitCode !== null)) {
        console.log(`[${queue}] an agent exited ${a.process.exitCode} during the fault; its last lines:\n  ${a.output().trim().split("\n").slice(-6).join("\n  ")}`);
      }
      for (const a of running) {
        if (a.process.exitCode !== null) continue;
        a.process.kill("SIGTERM");
        expect(await a.exited, `an agent still running stops cleanly:\n${a.output()}`).toBe(0);
      }
      // No task lost or doubled: each done once, by one completed event; the log replays to the table.
      const rows = await expectLogEqualsTable(r.database.db, queue);
      expect(rows.map((row) => row.status)).toEqual(Array(tasks).fill("done"));
      const [counts] = await r.database.client`
        SELECT count(*) FILTER (WHERE type = 'completed')::int AS completed,
               count(*) FILTER (WHERE type = 'lease_expired')::int AS reclaimed,
               count(DISTINCT (task_id, payload->>'version')) FILTER (WHERE type = 'claimed')::int AS claimed_versions,
               count(*) FILTER (WHERE type = 'claimed')::int AS claims
        FROM task_events WHERE queue = ${queue}`;
      expect(counts!.completed).toBe(tasks);
      // One owner per version: no two claimed events of a task at the same version.
      expect(counts!.claimed_versions).toBe(counts!.claims);

      // The server's pool has recovered whole: 20 health checks at once (more than its connections) all answer 200.
      const healthy = async () => {
        const answers = await Promise.all(Array.from({ length: 20 }, () =>
          fetch(`${r.server.url}/api/v1/health`, { signal: AbortSignal.timeout(15_000) }).then((res) => res.status, () => 0)));
        return answers.every((status) => status === 200);
      };
      await waitFor(healthy, "20 concurrent health checks all answering 200", 60_000, 500);

      // Both clients end with every event of the queue, in order, none twice.
      const all = await tableCursors(r.database, { queue });
      for (const [i, s] of streams.entries()) {
        await waitFor(() => s.ids().length >= all.length, `stream ${i} to hold all ${all.length} events (has ${s.ids().length})`, 60_000);
        expect(s.ids()).toEqual(all);
      }
      await Promise.all(streams.map((s) => s.close()));
      const lines = (pattern: RegExp) => running.reduce((n, a) => n + (a.output().match(pattern)?.length ?? 0), 0);
      return {
        reclaimed: counts!.reclaimed as number,
        // Calls that met the fault and were retried: owner calls ("… failed (…); retrying") and claims ("unavailable: …; next try").
        agentRetries: lines(/^(\w+ \d+ failed \(|(unavailable|network_error|busy|http_5\d\d): .*; next try in)/gm),
        // Calls that got no answer within the client's 30 s timeout (a query the driver lost: see docs/reliability.md).
        timedOut: lines(/^.*network_error: .*aborted due to timeout/gm),
        // Tasks an agent learnt it no longer held (its lease lapsed while the fault lasted).
        agentLost: lines(/^(lost|abandoned) \d+/gm),
        gaveUp,
        connections: streams.map((s) => s.connections),
      };
    },
  };
}

/** No request hit an unexpected error: the server logged no 500. */
export function expectNoInternalErrors(r: Rig) {
  expect(r.server.output()).not.toMatch(/\[api\] \w+ failed/);
}
