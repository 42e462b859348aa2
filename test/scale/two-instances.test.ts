import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAgentToken } from "@/lib/auth/tokens";
import { createUser } from "@/lib/auth/users";
import { ClaimboardApiError, ClaimboardClient, type Task } from "@/lib/client";
import { createActor, createTask, perform } from "@/lib/tasks";
import { callAction, manifestActions, signInOverHttp } from "@/test/attacks/helpers";
import { freshDatabase, type TestDatabase } from "@/test/db";
import { HAPROXY, startHaproxy, type Proxy } from "@/test/haproxy";
import { PGBOUNCER, startPgBouncer, type Pooler } from "@/test/pgbouncer";
import { startServer, type TestServer } from "@/test/server";
import { openEventStream, type SseClient } from "@/test/sse";

// `npm run test:scale` (docs/scaling.md): Claimboard as a deployment runs it. Two `next
// start` instances of one build behind HAProxy (round robin, health checks), their queries
// through PgBouncer in transaction mode, each one's LISTEN straight to PostgreSQL; 32
// claimers share 2,000 tasks through the proxy while instance B is killed with SIGKILL.

const TASKS = Number(process.env.SCALE_TASKS ?? 2_000);
const CLAIMERS = 32;
const QUEUE = "scale";
const LEASE = 5; // the shortest lease: what B held when it died lapses soon
const KILL_AFTER = Math.round(TASKS * 0.3); // completions

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!PGBOUNCER || !HAPROXY)("two instances behind HAProxy, queries through PgBouncer", () => {
  let database: TestDatabase;
  let pooler: Pooler;
  let a: TestServer;
  let b: TestServer;
  let proxy: Proxy;

  beforeAll(async () => {
    database = await freshDatabase();
    pooler = await startPgBouncer(database.url, { poolSize: 10 });
    const env = {
      DATABASE_PREPARE: "false", // what npm start's probe decides behind PgBouncer (test/pooler.test.ts)
      LISTEN_DATABASE_URL: database.url,
      TRUST_PROXY: "1",
      AUTH_FAILURE_BURST: "10",
      AUTH_FAILURES_PER_MINUTE: "0.5",
    };
    [a, b] = await Promise.all([startServer(pooler.via(database.url), env), startServer(pooler.via(database.url), env)]);
    proxy = await startHaproxy({ a: a.url, b: b.url });
  }, 180_000);
  afterAll(async () => {
    await proxy?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
    await pooler?.stop();
    await database?.close();
  });

  test("30 bad-token calls spread over both instances are throttled as one", async () => {
    const before = await proxy.responses();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${proxy.url}/api/v1/tasks`, { headers: { authorization: `Bearer cb_${"x".repeat(43)}` } });
      statuses.push(res.status);
    }
    const after = await proxy.responses();
    expect(after.a! - before.a!).toBeGreaterThanOrEqual(10); // round robin: both took their share
    expect(after.b! - before.b!).toBeGreaterThanOrEqual(10);
    expect(statuses).toEqual([...Array<number>(10).fill(401), ...Array<number>(20).fill(429)]);
  });

  test("a server action posted to B from a page A rendered works (one build, one session secret)", async () => {
    await createUser(database.db, { email: "ops@example.com", name: "Ops", role: "staff", password: "ops-password-1" });
    const signedIn = await signInOverHttp(a.url, "ops@example.com", "ops-password-1");
    expect(signedIn.session).not.toBeNull();
    const page = await fetch(`${a.url}/`, { headers: { cookie: signedIn.session! } });
    expect(page.status).toBe(200);
    const create = manifestActions().find((action) => action.exportedName === "createTaskAction")!;
    expect(create, "createTaskAction in the build's manifest").toBeDefined();
    // The id the page A rendered refers to is the build's: B runs the same build.
    expect(await page.text()).not.toContain("Internal Server Error");
    const answer = await callAction(b.url, create, [{ title: "made on B from A's page", queue: "default" }], { cookie: signedIn.session });
    expect(answer.result, answer.text.slice(0, 300)).toMatchObject({ ok: true });
    const [row] = await database.client`SELECT count(*)::int AS n FROM tasks WHERE title = 'made on B from A''s page'`;
    expect(row?.n).toBe(1);
  });

  test(`${CLAIMERS} claimers × ${TASKS} tasks through the proxy, B killed -9 mid-run: 0 duplicates, 0 lost; A's stream sees everything`, async () => {
    await database.client`INSERT INTO queues (name) VALUES (${QUEUE}) ON CONFLICT DO NOTHING`;
    const maker = await createActor(database.db, "agent", "scale-maker");
    for (let i = 0; i < TASKS; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, TASKS - i) }, (_, j) =>
        perform(createTask, { title: `scale ${i + j}`, queue: QUEUE }, { db: database.db, actor: maker })));
    }
    const [{ max: startId } = { max: "0" }] = await database.client<{ max: string }[]>`SELECT coalesce(max(id), 0)::text AS max FROM task_events`;
    const watcher = (await createAgentToken(database.db, { name: "watcher", role: "observer" })).token;
    // On A itself, not through the proxy: it must hear what B's transactions NOTIFY.
    const stream: SseClient = await openEventStream(`${a.url}/api/v1/events?queue=${QUEUE}`, { token: watcher });

    // Written through B alone (before it dies): A's stream must carry these.
    const viaB = new ClaimboardClient({ baseUrl: b.url, token: (await createAgentToken(database.db, { name: "via-b" })).token });
    const madeOnB = await Promise.all(Array.from({ length: 20 }, (_, i) => viaB.createTask({ title: `via B ${i}`, queue: QUEUE })));

    const completedBy = new Map<string, string>(); // task id → claimer
    const duplicates: string[] = [];
    let completions = 0;
    let killedAt = -1;
    let stranded: Task[] = [];
    let answeredAtKill: Record<string, number> = {};
    const remaining = async () =>
      (await database.client<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE queue = ${QUEUE} AND status <> 'done'`)[0]!.n;
    const errors = new Map<string, number>();
    const LOST = new Set(["not_owner", "lease_expired", "version_conflict", "invalid_transition"]);

    const claimer = async (name: string) => {
      const client = new ClaimboardClient({ baseUrl: proxy.url, token: (await createAgentToken(database.db, { name })).token, timeoutMs: 10_000 });
      const next = { queue: QUEUE, start: true, leaseSeconds: LEASE };
      let held: Task | null = null;
      const done = (task: Task) => {
        const other = completedBy.get(task.id);
        if (other !== undefined && other !== name) duplicates.push(`${task.id}: ${other} and ${name}`);
        if (other === undefined) completions++;
        completedBy.set(task.id, name);
      };
      for (;;) {
        try {
          if (!held) {
            held = await client.claimNext(next);
            if (!held) {
              if ((await remaining()) === 0) return;
              await sleep(250); // what is left is held, some by B's lost answers: their leases lapse
              continue;
            }
          }
          if (held.status !== "started") held = await client.start(held, { confirmCheck: true });
          const answer = await client.completeAndClaimNext(held, next);
          done(answer.task);
          held = answer.next;
        } catch (error) {
          const code = error instanceof ClaimboardApiError ? error.code : String(error);
          errors.set(code, (errors.get(code) ?? 0) + 1);
          if (error instanceof ClaimboardApiError && LOST.has(error.code)) held = null; // no longer ours
          else await sleep(100); // B gone mid-request (network_error, 502/503): the same call again
        }
      }
    };

    const killer = (async () => {
      while (completions < KILL_AFTER) await sleep(20);
      answeredAtKill = await proxy.responses();
      // What B's own clients held when it died (claimed through B, never to be finished):
      // their leases lapse and the claimers take them over.
      stranded = await viaB.claimBatch({ queue: QUEUE, limit: 8, start: true, leaseSeconds: LEASE });
      await b.kill("SIGKILL");
      killedAt = completions;
    })();
    const started = Date.now();
    // Said only when the run is slow: where it stands, so a stall in CI shows its shape.
    const slow = setInterval(() => console.log(`[scale] still running: ${completions} done, errors ${JSON.stringify(Object.fromEntries(errors))}`), 15_000);
    await Promise.all(Array.from({ length: CLAIMERS }, (_, i) => claimer(`claimer-${i}`)));
    await killer;
    clearInterval(slow);
    const seconds = (Date.now() - started) / 1000;

    // 0 lost, 0 duplicates: every task done exactly once, by the claimer that was told so.
    expect(duplicates).toEqual([]);
    expect(completedBy.size).toBe(TASKS + madeOnB.length);
    const [counts] = await database.client<{ done: number; completed: number; tasks: number; lapsed: number }[]>`
      SELECT (SELECT count(*)::int FROM tasks WHERE queue = ${QUEUE} AND status = 'done') AS done,
             (SELECT count(*)::int FROM task_events WHERE queue = ${QUEUE} AND type = 'completed') AS completed,
             (SELECT count(DISTINCT task_id)::int FROM task_events WHERE queue = ${QUEUE} AND type = 'completed') AS tasks,
             (SELECT count(*)::int FROM task_events WHERE queue = ${QUEUE} AND type = 'lease_expired') AS lapsed`;
    expect(counts).toMatchObject({ done: TASKS + madeOnB.length, completed: TASKS + madeOnB.length, tasks: TASKS + madeOnB.length });
    const byActor = await database.client<{ id: string; name: string }[]>`
      SELECT e.task_id::text AS id, a.name FROM task_events e JOIN actors a ON a.id = e.actor_id WHERE e.queue = ${QUEUE} AND e.type = 'completed'`;
    for (const row of byActor) expect(completedBy.get(row.id), `task ${row.id}`).toBe(row.name);
    expect(stranded.length).toBe(8);
    expect(counts!.lapsed).toBeGreaterThanOrEqual(stranded.length);
    for (const task of stranded) expect(completedBy.get(task.id), `stranded task ${task.id}`).toMatch(/^claimer-/);

    // Both instances took claimers' traffic before B died; after, A carried on alone.
    expect(killedAt).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(answeredAtKill.a).toBeGreaterThan(KILL_AFTER / 3);
    expect(answeredAtKill.b).toBeGreaterThan(KILL_AFTER / 3);
    expect(completions - killedAt).toBeGreaterThan(TASKS / 2);

    // A's stream: every event of the run, B's included, each once.
    const expected = (await database.client<{ id: string }[]>`
      SELECT id::text AS id FROM task_events WHERE queue = ${QUEUE} AND id > ${startId}::bigint ORDER BY id`).map((r) => r.id);
    await stream.until((messages) => messages.length >= expected.length, 30_000);
    const seen = stream.events().map((e) => e.eventId);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...expected].sort());
    const createdOnB = new Set(madeOnB.map((t) => t.id));
    expect(stream.events().filter((e) => e.type === "created" && createdOnB.has(e.taskId!)).length).toBe(madeOnB.length);
    stream.close();

    console.log(
      `[scale] ${TASKS + madeOnB.length} tasks, ${CLAIMERS} claimers, 2 instances → 1 at ${killedAt} completions: ${seconds.toFixed(1)} s ` +
        `(${((TASKS + madeOnB.length) / seconds).toFixed(0)} tasks/s); answers before the kill a=${answeredAtKill.a} b=${answeredAtKill.b}; ` +
        `${counts!.lapsed} leases lapsed and reclaimed (8 stranded on B); ${expected.length} events on A's stream; ` +
        `claimers' retried errors ${JSON.stringify(Object.fromEntries(errors))}`,
    );
  }, 300_000);
});
