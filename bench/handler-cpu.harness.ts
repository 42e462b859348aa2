import { sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { freshDatabase } from "@/test/db";
import { agentTokens } from "./http-cycle";
import { seedQueued } from "./lib/seed";
import { summarize } from "./lib/stats";

// What an API request costs this process's CPU without Next.js (CHANGELOG.md, "Issue 21,
// seventh step"): the agent loop through the complete+next route handler, called in-process
// by 64 concurrent callers, and the parts of a request one by one. Compare two checkouts by
// running it on each: CPU figures, not a bench row (no baseline in the same run).

const CLIENTS = 64;
const TASKS = Number(process.env.HARNESS_TASKS ?? 2000);
const REPS = Number(process.env.HARNESS_REPS ?? 5);

test("the complete+next handler's CPU a request, and its parts", async () => {
  const database = await freshDatabase();
  process.env.DATABASE_URL = database.url; // the handlers' own pool (db/index.ts)
  const { handlers } = await import("@/lib/http/handlers");
  const { authorize } = await import("@/lib/http/handler");
  const { endpoints } = await import("@/lib/http/endpoints");
  const { readJsonBody } = await import("@/lib/http/body");
  const { safeParse } = await import("@/lib/tasks/core/parse");
  const { loadTask } = await import("@/lib/tasks/core/task-row");
  const { getDatabase } = await import("@/db");
  const tokens = await agentTokens(database.url, CLIENTS, "harness");
  const request = (path: string, token: string, body: unknown) =>
    new Request(`http://harness${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const call = async (handler: (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>, r: Request, params: Record<string, string> = {}) => {
    const response = await handler(r, { params: Promise.resolve(params) });
    return { status: response.status, text: await response.text() };
  };
  const cpuMs = (from: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(from);
    return (used.user + used.system) / 1000;
  };

  // The loop as the reference agent runs it: claim once, then complete with next.
  const drain = async (total: number) => {
    await seedQueued(database.url, total);
    let done = 0;
    const worker = async (token: string) => {
      const claimed = await call(handlers.claimNext, request("/api/v1/claims", token, { start: true }));
      if (claimed.status === 204) return;
      let task = (JSON.parse(claimed.text) as { task: { id: string; version: number } | null }).task;
      while (task) {
        const answer = await call(handlers.completeTask, request(`/api/v1/tasks/${task.id}/complete`, token, { version: task.version, next: { start: true } }), { id: task.id });
        expect(answer.status, answer.text).toBe(200);
        done++;
        task = (JSON.parse(answer.text) as { next: { id: string; version: number } | null }).next;
      }
    };
    const from = process.cpuUsage();
    await Promise.all(tokens.map(worker));
    expect(done).toBe(total);
    return (cpuMs(from) * 1000) / done;
  };
  await drain(500); // warm the JIT and the pool
  const loop: number[] = [];
  for (let rep = 0; rep < REPS; rep++) loop.push(await drain(TASKS));

  // Each part by CPU a call, the same 64 callers at once.
  const part = async (work: (token: string, i: number) => Promise<unknown>, perCaller = 60) => {
    await Promise.all(tokens.map(async (t) => { for (let i = 0; i < 5; i++) await work(t, i); }));
    const from = process.cpuUsage();
    await Promise.all(tokens.map(async (t) => { for (let i = 0; i < perCaller; i++) await work(t, i); }));
    return (cpuMs(from) * 1000) / (perCaller * tokens.length);
  };
  const { db, client } = getDatabase();
  const parts: Record<string, number> = {
    "a Request object": await part(async (t) => request("/api/v1/tasks/1/complete", t, { version: 3 })),
    "authorize (the token lookup)": await part(async (t) => {
      const authorized = await authorize(endpoints.completeTask, request("/api/v1/tasks/1/complete", t, { version: 3 }), { id: "1" });
      expect("principal" in authorized).toBe(true);
    }),
    "the body and its zod schema": await part(async (t) => {
      const read = await readJsonBody(request("/api/v1/tasks/1/complete", t, { version: 3, next: { start: true } }));
      expect(read.ok && safeParse(endpoints.completeTask.body!, read.value).success).toBe(true);
    }),
    "SELECT 1": await part(() => client`SELECT 1`),
    "an empty transaction": await part(() => db.transaction((tx) => tx.execute(sql`SELECT 1`))),
    "loadTask": await part(async (_t, i) => expect(await loadTask(db, String(1 + (i % 500)))).not.toBeNull()),
  };
  console.log(`[harness] complete+next handler: ${summarize(loop).median.toFixed(0)} µs of CPU a request (${loop.map((v) => v.toFixed(0)).join(", ")}), ${CLIENTS} callers, ${TASKS} tasks × ${REPS}`);
  for (const [name, us] of Object.entries(parts)) console.log(`[harness] ${name}: ${us.toFixed(0)} µs a call`);
  await database.close();
});
