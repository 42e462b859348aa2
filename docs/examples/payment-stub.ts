// The worked example of docs/fences.md: a tiny payment service that acts only for the attempt
// that holds the task now. An agent sends its fence (the Claimboard-Fence header of its last
// owner call) with every charge; the service asks Claimboard before it charges, and refuses a
// stale fence with 409 — so a frozen agent that wakes after its lease lapsed and someone else
// took over cannot charge the card twice. Idempotency-Key (the effect ledger's key, the same
// string for every attempt) makes a retried charge answer the first charge's result.
// Run by test/http/fences.test.ts against a real server.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ClaimboardClient, ClaimboardApiError } from "@/lib/client";

export interface Charge {
  id: string;
  amount: number;
  taskId: string;
  attempt: number;
  idempotencyKey: string;
}

export interface PaymentStub {
  url: string;
  /** Every charge made, in order. */
  charges: Charge[];
  close(): Promise<void>;
}

/** Starts the stub on a free port; `claimboard` is the board's URL, `token` any token (an observer's will do). */
export async function startPaymentStub(claimboard: string, token: string): Promise<PaymentStub> {
  const board = new ClaimboardClient({ baseUrl: claimboard, token });
  const charges: Charge[] = [];
  const byKey = new Map<string, Charge>();
  /** The highest attempt seen per task: a fencing token's own rule, for the instant after a verify. */
  const highest = new Map<string, number>();

  const server: Server = createServer(async (req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    };
    const fence = req.headers["claimboard-fence"];
    const key = req.headers["idempotency-key"];
    if (req.method !== "POST" || req.url !== "/charges") return answer(404, { error: "not_found" });
    if (typeof fence !== "string" || typeof key !== "string") return answer(400, { error: "Claimboard-Fence and Idempotency-Key are required" });
    let body = "";
    for await (const chunk of req) body += chunk;
    const amount = Number((JSON.parse(body || "{}") as { amount?: unknown }).amount);

    // 1. Is the caller's attempt the task's current holding? Ask before acting, every time.
    let verdict;
    try {
      verdict = await board.verifyFence(fence);
    } catch (error) {
      if (error instanceof ClaimboardApiError && error.status === 400) return answer(400, { error: "not a Claimboard fence" });
      return answer(503, { error: "cannot check the fence now; retry" });
    }
    if (!verdict.current) return answer(409, { error: "stale_fence", reason: verdict.reason, attempt: verdict.attempt, currentAttempt: verdict.currentAttempt });
    // A verify and the charge are two steps: an older attempt that verified a moment before a
    // newer one charged is refused by number too (Kleppmann's fencing token).
    if (verdict.attempt < (highest.get(verdict.taskId) ?? 0)) return answer(409, { error: "stale_fence", reason: "superseded" });
    highest.set(verdict.taskId, verdict.attempt);

    // 2. The same key is the same charge, whichever attempt sends it.
    const earlier = byKey.get(key);
    if (earlier) return answer(200, { charge: earlier, replayed: true });
    const charge = { id: `ch_${charges.length + 1}`, amount, taskId: verdict.taskId, attempt: verdict.attempt, idempotencyKey: key };
    charges.push(charge);
    byKey.set(key, charge);
    return answer(201, { charge, replayed: false });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    charges,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
